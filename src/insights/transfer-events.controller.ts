import { Controller, Logger, type BeforeApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import { mergeMap, type Subscription } from 'rxjs';
import { InProcessEventPublisher } from '../outbox/event-publisher';
import { TRANSFER_COMPLETED, TRANSFER_EVENTS, type TransferEvent } from '../outbox/transfer-event';
import { InsightsService } from './insights.service';

/** Light mode: how many in-process events are classified at once, so a burst of transfers is not a burst of model calls. */
const IN_PROCESS_CONCURRENCY = 4;

/**
 * Classifies each completed transfer off the request path. In cluster mode the records come from
 * the Kafka topic (`@EventPattern`); in light mode the in-process publisher feeds the same handler.
 */
@Controller()
export class TransferEventsController implements OnModuleInit, BeforeApplicationShutdown {
  private readonly logger = new Logger(TransferEventsController.name);
  private readonly inFlight = new Set<Promise<void>>();
  private subscription: Subscription | undefined;

  constructor(
    private readonly insights: InsightsService,
    private readonly inProcess: InProcessEventPublisher,
  ) {}

  onModuleInit(): void {
    this.subscription = this.inProcess.events$
      .pipe(mergeMap((event) => this.onTransferEvent(parseEvent(event.payload)), IN_PROCESS_CONCURRENCY))
      .subscribe();
  }

  @EventPattern(TRANSFER_EVENTS)
  onTransferEvent(@Payload() event: TransferEvent | undefined): Promise<void> {
    if (event?.eventType !== TRANSFER_COMPLETED) return Promise.resolve();
    // Never throws: a failure here must neither stop the consumer nor replay the record; the endpoint covers it.
    const work = this.insights
      .classifyCompleted(event)
      .catch((error: unknown) =>
        this.logger.warn(`Could not classify ${event.transactionReferenceId}: ${(error as Error).message}`),
      )
      .finally(() => this.inFlight.delete(work));
    this.inFlight.add(work);
    return work;
  }

  /** Lets classifications already under way finish while the database is still open. */
  async beforeApplicationShutdown(): Promise<void> {
    this.subscription?.unsubscribe();
    await Promise.all(this.inFlight);
  }
}

function parseEvent(payload: string): TransferEvent | undefined {
  try {
    return JSON.parse(payload) as TransferEvent;
  } catch {
    return undefined;
  }
}
