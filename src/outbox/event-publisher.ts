import { Injectable } from '@nestjs/common';
import { Subject } from 'rxjs';

/** An outbox row on its way out: the Kafka record key, headers and value, as stored. */
export interface OutboundEvent {
  eventId: string;
  eventType: string;
  key: string;
  payload: string;
}

/** Where the relay delivers events. Light mode delivers in process; the Kafka publisher replaces it when a broker is configured. */
export abstract class EventPublisher {
  /** Resolves once every event is durably delivered; rejects to leave them pending for a retry. */
  abstract publish(events: OutboundEvent[]): Promise<void>;
}

/** Light mode (no KAFKA_BROKERS): in-process subscribers see each event after its commit. */
@Injectable()
export class InProcessEventPublisher extends EventPublisher {
  readonly events$ = new Subject<OutboundEvent>();

  async publish(events: OutboundEvent[]): Promise<void> {
    for (const event of events) this.events$.next(event);
  }
}
