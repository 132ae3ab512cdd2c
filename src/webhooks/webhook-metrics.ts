import { makeCounterProvider, makeGaugeProvider, makeHistogramProvider } from '@willsoto/nestjs-prometheus';

export const WEBHOOK_ATTEMPTS = 'payments_webhook_attempts_total';
export const WEBHOOK_ATTEMPT_DURATION = 'payments_webhook_attempt_duration_seconds';
export const WEBHOOK_OLDEST_PENDING_AGE = 'payments_webhook_oldest_pending_age_seconds';
export const WEBHOOK_ENDPOINTS = 'payments_webhook_endpoints';

/** An attempt's outcome: delivered (2xx), retrying (failed, another attempt is scheduled), failed (for good). */
export const ATTEMPT_OUTCOMES = ['delivered', 'retrying', 'failed'] as const;
/** Why an attempt failed, or `none`: a non-2xx status, a timeout, a network error, a refused address. */
export const ATTEMPT_REASONS = ['none', 'status', 'timeout', 'network', 'refused'] as const;

export const webhookMetricProviders = [
  makeCounterProvider({
    name: WEBHOOK_ATTEMPTS,
    help: 'Webhook delivery attempts, by outcome and failure reason',
    labelNames: ['outcome', 'reason'],
  }),
  makeHistogramProvider({
    name: WEBHOOK_ATTEMPT_DURATION,
    help: 'Duration of one webhook delivery attempt, from DNS resolution to the end of the answer',
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  }),
  makeGaugeProvider({
    name: WEBHOOK_OLDEST_PENDING_AGE,
    help: 'Age of the oldest pending webhook delivery of each endpoint, in seconds (0 when none is pending)',
    labelNames: ['endpoint'],
  }),
  makeGaugeProvider({
    name: WEBHOOK_ENDPOINTS,
    help: 'Webhook endpoints by status; DISABLED ones failed a whole retry schedule and get no new events',
    labelNames: ['status'],
  }),
];
