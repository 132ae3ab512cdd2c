import { Injectable } from '@nestjs/common';

/** How long one busy batch keeps the path marked busy: a few of the batcher's cycles and more. */
const BUSY_FOR_MS = 1000;

/**
 * Whether the money path is at work, as the transfer batcher sees it: background work that
 * competes for the same cores (webhook deliveries) gives way while it is, and catches up after.
 * Busy means a batch of more than one transfer, or one that left transfers queued, within the
 * last second: on a quiet service every batch is one transfer and the path is never busy.
 */
@Injectable()
export class MoneyPathLoad {
  private busyUntil = 0;

  sawBatch(size: number, stillQueued: number): void {
    if (size > 1 || stillQueued > 0) this.busyUntil = Date.now() + BUSY_FOR_MS;
  }

  get busy(): boolean {
    return Date.now() < this.busyUntil;
  }
}
