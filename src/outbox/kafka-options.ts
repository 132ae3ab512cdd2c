import type { KafkaOptions } from '@nestjs/microservices';
import { logLevel, Partitioners } from 'kafkajs';
import type { AppConfig } from '../config/app-config';

export const TRANSFER_EVENTS_CLIENT = Symbol('TRANSFER_EVENTS_CLIENT');

/**
 * The service's consumer group for a topic: shared by all instances, so each event is handled once
 * per cluster. One group per topic, because kafkajs's partition assigner takes every member of a
 * group to read the same topics (deployments with different topics may share a broker).
 */
export function consumerGroup(topic: string): string {
  return `payment-service-events.${topic}`;
}

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
    consumer: { groupId: consumerGroup(config.kafkaTopic), allowAutoTopicCreation: false },
    postfixId: '',
    subscribe: { fromBeginning: true },
  };
}
