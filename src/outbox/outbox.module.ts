// Owns outbox_events: written by the money functions in the movement's transaction, relayed here
// to the transfer-event publisher (in-process or Kafka) and marked published.
import { Module } from '@nestjs/common';
import { ClientKafka, ClientsModule, Transport } from '@nestjs/microservices';
import { AppConfig } from '../config/app-config';
import { EventPublisher, InProcessEventPublisher } from './event-publisher';
import { KafkaEventPublisher } from './kafka-event-publisher';
import { producerOptions, TRANSFER_EVENTS_CLIENT } from './kafka-options';
import { outboxMetricProviders } from './outbox-metrics';
import { OutboxEventsRepository } from './outbox-events.repository';
import { OutboxRelay } from './outbox-relay.service';

@Module({
  imports: [
    ClientsModule.registerAsync([
      {
        name: TRANSFER_EVENTS_CLIENT,
        inject: [AppConfig],
        useFactory: (config: AppConfig) => ({ transport: Transport.KAFKA, options: producerOptions(config) }),
      },
    ]),
  ],
  providers: [
    InProcessEventPublisher,
    {
      provide: EventPublisher,
      inject: [AppConfig, InProcessEventPublisher, TRANSFER_EVENTS_CLIENT],
      // Light mode publishes in process; with KAFKA_BROKERS the relay publishes to Kafka.
      useFactory: (config: AppConfig, inProcess: InProcessEventPublisher, client: ClientKafka) =>
        config.kafkaBrokers.length > 0 ? new KafkaEventPublisher(client, config) : inProcess,
    },
    ...outboxMetricProviders,
    OutboxRelay,
    OutboxEventsRepository,
  ],
  exports: [OutboxRelay, InProcessEventPublisher, EventPublisher],
})
export class OutboxModule {}
