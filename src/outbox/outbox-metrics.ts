import { makeCounterProvider, makeGaugeProvider } from '@willsoto/nestjs-prometheus';

export const OUTBOX_PENDING = 'payments_outbox_pending_events';
export const OUTBOX_OLDEST_AGE = 'payments_outbox_oldest_pending_age_seconds';
export const OUTBOX_PUBLISHED = 'payments_outbox_published_total';
export const OUTBOX_PUBLISH_FAILURES = 'payments_outbox_publish_failures_total';

export const outboxMetricProviders = [
  makeGaugeProvider({ name: OUTBOX_PENDING, help: 'Transfer events committed but not yet published' }),
  makeGaugeProvider({ name: OUTBOX_OLDEST_AGE, help: 'Age of the oldest unpublished transfer event, in seconds' }),
  makeCounterProvider({ name: OUTBOX_PUBLISHED, help: 'Transfer events published and marked' }),
  makeCounterProvider({ name: OUTBOX_PUBLISH_FAILURES, help: 'Failed attempts to publish a batch of transfer events' }),
];
