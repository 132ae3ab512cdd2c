import { Inject, Injectable } from '@nestjs/common';
import { Interval } from '@nestjs/schedule';
import { InjectMetric, makeGaugeProvider } from '@willsoto/nestjs-prometheus';
import type { Pool } from 'pg';
import type { Gauge } from 'prom-client';
import { PG_POOL } from '../database/pg-pool';

const POOL_CONNECTIONS = 'payments_db_pool_connections';

export const poolMetricProviders = [
  makeGaugeProvider({
    name: POOL_CONNECTIONS,
    help: 'PostgreSQL pool by state: idle and active connections, clients waiting for one',
    labelNames: ['state'],
  }),
];

/**
 * Samples the service's one pg pool (TypeORM's connections included) every second (the pool has no events for idle/waiting counts). The states
 * do not overlap, so a dashboard may stack idle and active without counting a connection twice.
 */
@Injectable()
export class PoolMetrics {
  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    @InjectMetric(POOL_CONNECTIONS) private readonly connections: Gauge,
  ) {}

  @Interval('db-pool-metrics', 1000)
  sample(): void {
    this.connections.set({ state: 'idle' }, this.pool.idleCount);
    this.connections.set({ state: 'active' }, this.pool.totalCount - this.pool.idleCount);
    this.connections.set({ state: 'waiting' }, this.pool.waitingCount);
  }
}
