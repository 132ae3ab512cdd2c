import type { KafkaOptions } from '@nestjs/microservices';
import { logLevel, Partitioners } from 'kafkajs';
import type { AppConfig } from '../config/app-config';

export const TRANSFER_EVENTS_CLIENT = Symbol('TRANSFER_EVENTS_CLIENT');

/** With the postfix below, the consumer group is `payment-service-events`: one group for all instances, so each event is handled once per cluster. */
const CONSUMER_GROUP = 'payment-service';

type KafkaClientOptions = Required<KafkaOptions>['options'];

function connection(config: AppConfig): KafkaClientOptions['client'] {
  return {
    clientId: 'payment-service',
    brokers: config.kafkaBrokers,
    logLevel: logLevel.NOTHING,
    connectionTimeout: 3000,
    requestTimeout: 10_000,
    // The relay and the consumer retry with their own back-off; keep each attempt short.
    retry: { retries: 2, initialRetryTime: 200, maxRetryTime: 2000 },
  };
}

/**
 * The outbox relay's producer: idempotent with one request in flight, so a retried batch can
 * neither duplicate nor reorder records, and acks=all on every send.
 */
export function producerOptions(config: AppConfig): KafkaClientOptions {
  return {
    client: connection(config),
    producerOnlyMode: true,
    producer: { idempotent: true, maxInFlightRequests: 1, createPartitioner: Partitioners.DefaultPartitioner },
    send: { acks: -1 },
  };
}

/**
 * The consumer of the transfer topic. It starts from the beginning when its group has no offsets
 * yet, so an event published while the group was still forming is not skipped.
 */
export function consumerOptions(config: AppConfig): KafkaClientOptions {
  return {
    client: connection(config),
    consumer: { groupId: CONSUMER_GROUP, allowAutoTopicCreation: false },
    postfixId: '-events',
    subscribe: { fromBeginning: true },
  };
}
