import { Module } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { EventPublisher, InProcessEventPublisher } from './event-publisher';
import { KafkaEventPublisher } from './kafka-event-publisher';
import { outboxMetricProviders } from './outbox-metrics';
import { OutboxRelay } from './outbox-relay.service';

@Module({
  providers: [
    InProcessEventPublisher,
    {
      provide: EventPublisher,
      inject: [AppConfig, InProcessEventPublisher],
      // Light mode publishes in process; with KAFKA_BROKERS the relay publishes to Kafka.
      useFactory: (config: AppConfig, inProcess: InProcessEventPublisher) =>
        config.kafkaBrokers.length > 0 ? new KafkaEventPublisher(config) : inProcess,
    },
    ...outboxMetricProviders,
    OutboxRelay,
  ],
  exports: [OutboxRelay, InProcessEventPublisher, EventPublisher],
})
export class OutboxModule {}
