import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { Interval } from '@nestjs/schedule';
import { DataSource } from 'typeorm';
import { EventPublisher, type OutboundEvent } from './event-publisher';

const BATCH_SIZE = 500;

/**
 * Moves committed outbox rows to the publisher: claims a batch with FOR UPDATE SKIP LOCKED
 * (so several instances never take the same rows), publishes, then marks them published,
 * all in one transaction. A crash before the mark republishes: delivery is at-least-once.
 */
@Injectable()
export class OutboxRelay implements OnApplicationShutdown {
  private readonly logger = new Logger(OutboxRelay.name);
  private running: Promise<void> | undefined;
  private rerunRequested = false;
  private stopped = false;

  constructor(
    private readonly dataSource: DataSource,
    private readonly publisher: EventPublisher,
  ) {}

  /** Called after each committed transfer: run soon, coalescing nudges that arrive while a run is going. */
  nudge(): void {
    if (this.stopped) return;
    if (this.running) {
      this.rerunRequested = true;
      return;
    }
    this.running = this.drain().finally(() => {
      this.running = undefined;
      if (this.rerunRequested) {
        this.rerunRequested = false;
        this.nudge();
      }
    });
  }

  @Interval('outbox-relay', 1000)
  poll(): void {
    this.nudge();
  }

  /** Relays until nothing is pending (or a batch fails); resolves when done. */
  async drain(): Promise<void> {
    try {
      while (!this.stopped && (await this.relayBatch()) === BATCH_SIZE);
    } catch (error) {
      this.logger.warn(`Outbox relay failed, will retry: ${(error as Error).message}`);
    }
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    await this.running;
  }

  private relayBatch(): Promise<number> {
    return this.dataSource.transaction(async (manager) => {
      const rows = (await manager.query(
        `SELECT id, event_id AS "eventId", event_type AS "eventType", aggregate_key AS "key", payload
         FROM outbox_events WHERE published_at IS NULL
         ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED`,
        [BATCH_SIZE],
      )) as (OutboundEvent & { id: string })[];
      if (rows.length === 0) return 0;
      await this.publisher.publish(rows);
      await manager.query(`UPDATE outbox_events SET published_at = now(), attempts = attempts + 1 WHERE id = ANY($1)`, [
        rows.map((row) => row.id),
      ]);
      return rows.length;
    });
  }
}
