import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { ClientKafka } from '@nestjs/microservices';
import type { Kafka } from 'kafkajs';
import { lastValueFrom } from 'rxjs';
import { AppConfig } from '../config/app-config';
import { EventPublisher, type OutboundEvent } from './event-publisher';
import { TRANSFER_EVENTS_CLIENT } from './kafka-options';

const TOPIC_PARTITIONS = 3;

/**
 * Cluster mode (KAFKA_BROKERS set): each event becomes one record keyed by the sender's UPI ID
 * (so one sender's events stay in order within a partition), with eventId and eventType headers,
 * sent through Nest's Kafka client (idempotent producer, acks=all: see kafka-options.ts).
 * Connection and topic creation are lazy, so a broker that is down at start only delays events,
 * never the service.
 */
@Injectable()
export class KafkaEventPublisher extends EventPublisher implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(KafkaEventPublisher.name);
  private ready: Promise<void> | undefined;

  constructor(
    @Inject(TRANSFER_EVENTS_CLIENT) private readonly client: ClientKafka,
    private readonly config: AppConfig,
  ) {
    super();
  }

  /** Ensures the topic at start when the broker is there; if it is not, the first publish retries. */
  onApplicationBootstrap(): void {
    this.connect().catch((error: unknown) =>
      this.logger.warn(`Kafka not reachable yet (${(error as Error).message}); events wait in the outbox`),
    );
  }

  async publish(events: OutboundEvent[]): Promise<void> {
    if (events.length === 0) return;
    await this.connect();
    try {
      // One batch, one request per partition leader; the producer keeps the batch's order per key.
      await lastValueFrom(
        this.client.emitBatch(this.config.kafkaTopic, {
          messages: events.map((event) => ({
            key: event.key,
            value: event.payload,
            headers: { eventId: event.eventId, eventType: event.eventType },
          })),
        }),
      );
    } catch (error) {
      // Start from a fresh connection next time rather than trust a producer that just failed.
      await this.onApplicationShutdown();
      throw error;
    }
  }

  async onApplicationShutdown(): Promise<void> {
    this.ready = undefined;
    await this.client.close().catch(() => undefined);
  }

  /** Connects once (again after a failure) and makes sure the topic exists before the first record. */
  private connect(): Promise<void> {
    this.ready ??= this.openProducer().catch((error: unknown) => {
      this.ready = undefined;
      throw error;
    });
    return this.ready;
  }

  private async openProducer(): Promise<void> {
    await this.client.connect();
    await this.ensureTopic(this.client.unwrap<Kafka>());
  }

  private async ensureTopic(kafka: Kafka): Promise<void> {
    const admin = kafka.admin();
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
