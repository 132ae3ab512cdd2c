/**
 * The service's webhook backlog as its public /actuator/prometheus shows it: used by the bench
 * (sampled through each load phase) and by the webhook tests.
 */

const round = (value: number) => Math.round(value * 10) / 10;

/** A load phase's webhooks (issue 38: 11): the oldest pending delivery, sampled each second; deliveries per second. */
export type WebhookBacklog = Record<'maxOldestPendingS' | 'endOldestPendingS' | 'deliveredPerSecond', number>;

/** From /actuator/prometheus (public): the oldest pending delivery over all endpoints and the deliveries so far. */
export function readWebhookMetrics(text: string): { oldestPendingS: number; delivered: number } {
  const values = (pattern: RegExp) => [...text.matchAll(pattern)].map((m) => Number(m[1]));
  const ages = values(/^payments_webhook_oldest_pending_age_seconds(?:\{[^}]*\})? (\S+)$/gm);
  const delivered = values(/^payments_webhook_attempts_total\{[^}]*outcome="delivered"[^}]*\} (\S+)$/gm);
  return { oldestPendingS: Math.max(0, ...ages), delivered: delivered.reduce((sum, n) => sum + n, 0) };
}

/** Samples the service's webhook metrics once a second from now; the function returned stops and sums up. */
export async function sampleWebhookBacklog(baseUrl: string) {
  const scrape = async () => readWebhookMetrics(await (await fetch(`${baseUrl}/actuator/prometheus`)).text());
  const first = await scrape();
  const ages: number[] = [];
  const sample = async () => ages.push((await scrape()).oldestPendingS);
  const timer = setInterval(() => void sample().catch(() => 0), 1000);
  return async (elapsedS: number): Promise<WebhookBacklog> => {
    clearInterval(timer);
    const last = await scrape();
    const deliveredPerSecond = round((last.delivered - first.delivered) / elapsedS);
    const maxOldestPendingS = round(Math.max(last.oldestPendingS, ...ages));
    return { maxOldestPendingS, endOldestPendingS: round(last.oldestPendingS), deliveredPerSecond };
  };
}
