import { Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { Interval } from '@nestjs/schedule';
import { DatabaseOutages } from '../common/errors/database-outages';
import { PartitionsRepository } from './partitions.repository';

/**
 * Keeps partitions made ahead of the database clock (not this process's: a database under a
 * faked clock gets partitions for its own time). Once before the service serves, waiting for an
 * instance already at it, so no insert finds its partition missing; then hourly on whichever
 * instance claims the run.
 */
@Injectable()
export class PartitionsJob implements OnApplicationBootstrap {
  private readonly logger = new Logger('Partitions');

  constructor(
    private readonly partitions: PartitionsRepository,
    private readonly outages: DatabaseOutages,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.report(await this.partitions.ensureAroundNow(true));
  }

  @Interval('partitions-ahead', 3_600_000)
  async run(): Promise<number | null> {
    try {
      const made = await this.partitions.ensureAroundNow(false);
      this.report(made);
      return made;
    } catch (error) {
      if (!this.outages.absorbs('partitions-ahead', error)) {
        this.logger.error(`Making partitions ahead failed; retrying in an hour: ${(error as Error).message}`);
      }
      return null;
    }
  }

  private report(made: number | null): void {
    if (made) this.logger.log(`Made ${made} partitions ahead`);
  }
}
