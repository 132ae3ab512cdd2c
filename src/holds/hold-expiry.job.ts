import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { Interval } from '@nestjs/schedule';
import { DatabaseOutages } from '../common/errors/database-outages';
import { HoldsRepository } from './holds.repository';
import { HoldsService } from './holds.service';

const TICK_MS = 1000;
/** Due holds read per look; more are read on the next look of the same tick. */
const BATCH = 100;

/**
 * Returns the remainder of every hold past its expiresAt to its payer, within a second or two.
 * The claim is PostgreSQL's: hold_return locks the hold (FOR UPDATE SKIP LOCKED) and expires it
 * only while it is HELD and due, so on any number of instances each hold expires exactly once, and
 * one that dies mid-expiry leaves the hold due for the next look (its transaction rolled back).
 */
@Injectable()
export class HoldExpiryJob implements OnApplicationShutdown {
  private readonly logger = new Logger('HoldExpiry');
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly holds: HoldsRepository,
    private readonly service: HoldsService,
    private readonly outages: DatabaseOutages,
  ) {}

  @Interval('hold-expiry', TICK_MS)
  tick(): void {
    if (this.stopped || this.running) return;
    this.running = this.expireDue().finally(() => (this.running = undefined));
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    await this.running;
  }

  private async expireDue(): Promise<void> {
    try {
      for (;;) {
        const due = await this.holds.findDue(BATCH);
        let expired = 0;
        for (const referenceId of due) {
          if (this.stopped) return;
          if (await this.service.expire(referenceId)) expired += 1;
        }
        // Another instance had the rest: leave them to it rather than read them again at once.
        if (due.length < BATCH || expired === 0) return;
      }
    } catch (error) {
      if (this.outages.absorbs('hold-expiry', error)) return;
      this.logger.error(`Hold expiry failed: ${(error as Error).message}`);
    }
  }
}
