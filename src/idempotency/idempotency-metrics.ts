import { makeCounterProvider, makeHistogramProvider } from '@willsoto/nestjs-prometheus';

export const MOVEMENTS_TOTAL = 'payments_transfers_total';
export const MOVEMENT_SECONDS = 'payments_transfer_duration_seconds';

export const idempotencyMetricProviders = [
  makeCounterProvider({
    name: MOVEMENTS_TOTAL,
    help: 'Transfer requests past identity and rate limit, by outcome (HTTP status) and whether it was a replay',
    labelNames: ['outcome', 'replayed'],
  }),
  makeHistogramProvider({
    name: MOVEMENT_SECONDS,
    help: 'Transfer request latency in seconds, by outcome',
    labelNames: ['outcome'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
  }),
];
