import { isDiskFull } from '../common/errors/postgres-errors';

/** How long after the last "no space left" refusal readiness stays DOWN. */
export const DISK_FULL_WINDOW_MS = 10_000;

/**
 * Readiness for a full disk, from the errors of the last seconds rather than a write probe.
 * Why: a probe's tiny write can succeed in free space of a page that already exists (or in a WAL
 * segment already allocated) while every transfer, which must extend its tables, is refused; the
 * refusals the clients get are the truth. Every query of the pool passes through here, so
 * background writes (outbox, purges) count too. The cost: with no traffic at all (the load
 * balancer took the instance out) readiness turns UP after the window and a request or two
 * probes the disk again.
 */
export class DiskFullWindow {
  private lastAt = 0;
  private lastMessage = '';

  constructor(private readonly windowMs = DISK_FULL_WINDOW_MS) {}

  note(error: unknown): void {
    if (!isDiskFull(error)) return;
    this.lastAt = Date.now();
    this.lastMessage = (error as Error).message;
  }

  /** The last refusal, while it is recent enough to keep readiness DOWN. */
  recent(): { ageMs: number; message: string } | undefined {
    const ageMs = Date.now() - this.lastAt;
    return ageMs <= this.windowMs ? { ageMs, message: this.lastMessage } : undefined;
  }
}
