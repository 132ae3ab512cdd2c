/** Each delay is spread by ±20 % so that deliveries failed together do not all come back together. */
const JITTER = 0.2;

/**
 * The delay before the next attempt, after `attemptsInRound` failed attempts of this round of the
 * schedule (WEBHOOK_RETRY_SCHEDULE); null when the schedule is used up and the delivery FAILED.
 */
export function nextAttemptDelayMs(scheduleMs: number[], attemptsInRound: number, random = Math.random): number | null {
  const base = scheduleMs[attemptsInRound - 1];
  if (base === undefined) return null;
  return Math.round(base * (1 - JITTER + 2 * JITTER * random()));
}
