import { Injectable, Logger } from '@nestjs/common';
import { DatabaseOutages } from '../common/errors/database-outages';
import { type AttemptRecord, WebhookDeliveriesRepository } from './webhook-deliveries.repository';

/** A result waits at most this long for others to share its write (or until a group is full). */
const GATHER_MS = 100;
const GROUP_SIZE = 500;

/**
 * Writes attempt results in groups: whatever finished within GATHER_MS of the first, or while the
 * previous write was running, goes in one statement. Under load that is one UPDATE per hundred
 * deliveries instead of one per delivery or per few, which keeps webhooks from taking database
 * time from the transfers; the rows stay leased meanwhile, so none is claimed again. A result not
 * yet written when the process dies is not lost work: its delivery is due again after its lease.
 */
@Injectable()
export class AttemptRecorder {
  private readonly logger = new Logger('Webhooks');
  private queue: { record: AttemptRecord; done: () => void }[] = [];
  private writing: Promise<void> | undefined;
  private gathering: NodeJS.Timeout | undefined;
  /** Set while writes fail, so that an outage logs once, not once per tick. */
  private failing = false;

  constructor(
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly outages: DatabaseOutages,
  ) {}

  /** Resolves once the result is written; a failed write is tried again on the worker's next tick. */
  record(record: AttemptRecord): Promise<void> {
    return new Promise((done) => {
      this.queue.push({ record, done });
      this.gather();
    });
  }

  /** Writes once a group is full, or GATHER_MS after the first result waiting. */
  private gather(): void {
    if (this.queue.length >= GROUP_SIZE) this.flushSoon();
    else if (this.queue.length > 0) this.gathering ??= setTimeout(() => this.flushSoon(), GATHER_MS);
  }

  flushSoon(): void {
    clearTimeout(this.gathering);
    this.gathering = undefined;
    if (!this.writing && this.queue.length > 0) {
      this.writing = this.write().then((written) => {
        this.writing = undefined;
        // After a failed write the tick tries again: looping here would spin while the database is down.
        if (written) this.gather();
      });
    }
  }

  async flush(): Promise<void> {
    clearTimeout(this.gathering);
    this.gathering = undefined;
    while (this.writing) await this.writing;
    if (this.queue.length > 0) await this.write();
  }

  private async write(): Promise<boolean> {
    const batch = this.queue.splice(0, GROUP_SIZE);
    try {
      const disabled = await this.deliveries.recordAttempts(batch.map((item) => item.record));
      for (const endpointId of disabled) {
        this.logger.warn({ msg: 'Webhook endpoint disabled: a whole retry schedule failed', endpointId });
      }
      this.failing = false;
      batch.forEach((item) => item.done());
      return true;
    } catch (error) {
      if (!this.outages.absorbs('webhook-attempts', error) && !this.failing)
        this.logger.warn({ msg: 'Recording webhook attempts failed; retrying', error: String(error) });
      this.failing = true;
      this.queue.unshift(...batch);
      return false;
    }
  }
}
