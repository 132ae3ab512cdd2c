import { Injectable } from '@nestjs/common';
import { InjectMetric, makeCounterProvider, makeHistogramProvider } from '@willsoto/nestjs-prometheus';
import type { Counter, Histogram } from 'prom-client';
import { ApiError } from '../common/errors/api-error';
import { ERROR_DESCRIPTORS } from '../common/errors/error-code';

const TRANSFERS = 'payments_transfers_total';
const TRANSFER_SECONDS = 'payments_transfer_duration_seconds';
export const RATE_LIMIT_REJECTIONS = 'payments_rate_limit_rejections_total';

export const transferMetricProviders = [
  makeCounterProvider({ name: TRANSFERS, help: 'Transfer requests by outcome (HTTP status)', labelNames: ['outcome'] }),
  makeHistogramProvider({
    name: TRANSFER_SECONDS,
    help: 'Transfer request latency in seconds, by outcome',
    labelNames: ['outcome'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
  }),
  makeCounterProvider({ name: RATE_LIMIT_REJECTIONS, help: 'Transfers refused by the per-user rate limit (429)' }),
];

/** Counts and times every transfer request by the status it answered. */
@Injectable()
export class TransferMetrics {
  constructor(
    @InjectMetric(TRANSFERS) private readonly transfers: Counter,
    @InjectMetric(TRANSFER_SECONDS) private readonly latency: Histogram,
  ) {}

  async measure<T extends { status: number }>(work: () => Promise<T>): Promise<T> {
    const stop = this.latency.startTimer();
    let outcome = '500';
    try {
      const result = await work();
      outcome = String(result.status);
      return result;
    } catch (error) {
      if (error instanceof ApiError) outcome = String(ERROR_DESCRIPTORS[error.code].status);
      throw error;
    } finally {
      this.transfers.inc({ outcome });
      stop({ outcome });
    }
  }
}
