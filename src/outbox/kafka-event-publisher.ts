import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { type Admin, Kafka, logLevel, Partitioners, type Producer } from 'kafkajs';
import { AppConfig } from '../config/app-config';
import { EventPublisher, type OutboundEvent } from './event-publisher';

const TOPIC_PARTITIONS = 3;

/**
 * Cluster mode (KAFKA_BROKERS set): each event becomes one record keyed by the sender's UPI ID
 * (so one sender's events stay in order within a partition), with eventId and eventType headers.
 * Idempotent producer, acks=all. Connection and topic creation are lazy, so a broker that is down
 * at start only delays events, never the service.
 */
@Injectable()
export class KafkaEventPublisher extends EventPublisher implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(KafkaEventPublisher.name);
  private readonly kafka: Kafka;
  private producer: Producer | undefined;
  private ready: Promise<Producer> | undefined;

  constructor(private readonly config: AppConfig) {
    super();
    this.kafka = new Kafka({
      clientId: 'payment-service',
      brokers: config.kafkaBrokers,
      logLevel: logLevel.NOTHING,
      connectionTimeout: 3000,
      requestTimeout: 10_000,
      // The relay retries whole batches with its own back-off; keep each attempt short.
      retry: { retries: 2, initialRetryTime: 200, maxRetryTime: 2000 },
    });
  }

  /** Ensures the topic at start when the broker is there; if it is not, the first publish retries. */
  onApplicationBootstrap(): void {
    this.connect().catch((error: unknown) =>
      this.logger.warn(`Kafka not reachable yet (${(error as Error).message}); events wait in the outbox`),
    );
  }

  async publish(events: OutboundEvent[]): Promise<void> {
    const producer = await this.connect();
    try {
      await this.send(producer, events);
    } catch (error) {
      // Start from a fresh connection next time rather than trust a producer that just failed.
      await this.onApplicationShutdown();
      throw error;
    }
  }

  private async send(producer: Producer, events: OutboundEvent[]): Promise<void> {
    await producer.send({
      topic: this.config.kafkaTopic,
      acks: -1,
      messages: events.map((event) => ({
        key: event.key,
        value: event.payload,
        headers: { eventId: event.eventId, eventType: event.eventType },
      })),
    });
  }

  async onApplicationShutdown(): Promise<void> {
    const producer = this.producer;
    this.producer = undefined;
    this.ready = undefined;
    await producer?.disconnect().catch(() => undefined);
  }

  /** Connects once (again after a failure) and makes sure the topic exists. */
  private connect(): Promise<Producer> {
    this.ready ??= this.openProducer().catch((error: unknown) => {
      this.ready = undefined;
      throw error;
    });
    return this.ready;
  }

  private async openProducer(): Promise<Producer> {
    await this.ensureTopic();
    const producer = this.kafka.producer({
      idempotent: true,
      maxInFlightRequests: 1,
      createPartitioner: Partitioners.DefaultPartitioner,
    });
    await producer.connect();
    this.producer = producer;
    return producer;
  }

  private async ensureTopic(): Promise<void> {
    const admin: Admin = this.kafka.admin();
    await admin.connect();
    try {
      const created = await admin.createTopics({
        waitForLeaders: true,
        topics: [
          {
            topic: this.config.kafkaTopic,
            numPartitions: TOPIC_PARTITIONS,
            replicationFactor: this.config.kafkaReplicationFactor,
          },
        ],
      });
      if (created) this.logger.log(`Created topic ${this.config.kafkaTopic} (${TOPIC_PARTITIONS} partitions)`);
    } finally {
      await admin.disconnect();
    }
  }
}
