import { makeCounterProvider, makeHistogramProvider } from '@willsoto/nestjs-prometheus';

// Every movement by kind; the transfer series keep their names (dashboards and alerts read them).
export const MOVEMENTS_TOTAL = 'payments_movements_total';
export const MOVEMENT_SECONDS = 'payments_movement_duration_seconds';
export const TRANSFERS_TOTAL = 'payments_transfers_total';
export const TRANSFER_SECONDS = 'payments_transfer_duration_seconds';

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

export const movementMetricProviders = [
  makeCounterProvider({
    name: MOVEMENTS_TOTAL,
    help: 'Money movement requests past identity and rate limit, by kind (transfer, reversal, deposit), outcome (HTTP status) and replay',
    labelNames: ['kind', 'outcome', 'replayed'],
  }),
  makeHistogramProvider({
    name: MOVEMENT_SECONDS,
    help: 'Money movement request latency in seconds, by kind and outcome',
    labelNames: ['kind', 'outcome'],
    buckets: LATENCY_BUCKETS,
  }),
  makeCounterProvider({
    name: TRANSFERS_TOTAL,
    help: 'Transfer requests (payments of payment requests included) past identity and rate limit, by outcome (HTTP status) and replay',
    labelNames: ['outcome', 'replayed'],
  }),
  makeHistogramProvider({
    name: TRANSFER_SECONDS,
    help: 'Transfer request latency in seconds, by outcome',
    labelNames: ['outcome'],
    buckets: LATENCY_BUCKETS,
  }),
];
