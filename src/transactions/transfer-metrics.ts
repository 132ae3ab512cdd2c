import { makeCounterProvider } from '@willsoto/nestjs-prometheus';

// Transfers answered are counted by MovementInterceptor (src/movements) (payments_transfers_total).
export const RATE_LIMIT_REJECTIONS = 'payments_rate_limit_rejections_total';

export const transferMetricProviders = [
  makeCounterProvider({ name: RATE_LIMIT_REJECTIONS, help: 'Transfers refused by the per-user rate limit (429)' }),
];
