import type { INestApplication } from '@nestjs/common';
import { type CustomStrategy, ServerKafka } from '@nestjs/microservices';
import type { Consumer } from '@nestjs/microservices/external/kafka.interface';
import type { AppConfig } from '../config/app-config';
import { consumerOptions } from './kafka-options';
import { TRANSFER_EVENTS } from './transfer-event';

const FIRST_RETRY_MS = 1000;
const MAX_RETRY_MS = 30_000;

/**
 * Nest's Kafka server for the transfer topic, with two differences. Handlers say
 * `@EventPattern(TRANSFER_EVENTS)` while the topic is KAFKA_TOPIC, known only at run time. And a
 * broker that is down at start delays the consumer, never the service: it keeps trying in the
 * background with back-off, as the outbox relay does.
 */
export class TransferEventsServer extends ServerKafka {
  private closed = false;
  private starting: Promise<void> | undefined;
  private wake: (() => void) | undefined;

  constructor(
    private readonly topic: string,
    options: ConstructorParameters<typeof ServerKafka>[0],
  ) {
    super(options);
    // kafkajs restarts a crashed consumer on a timer; once closed, that restart must not happen.
    const retry = { ...this.options.consumer?.retry, restartOnFailure: () => Promise.resolve(!this.closed) };
    this.options.consumer = { ...this.options.consumer!, retry };
  }

  override async listen(callback: (error?: unknown) => void): Promise<void> {
    callback();
    this.starting = this.startUntilClosed();
  }

  /** Waits for a start under way, so that what it creates is what gets closed. */
  override async close(): Promise<void> {
    this.closed = true;
    this.wake?.();
    await this.starting;
    await super.close();
  }

  override async bindEvents(consumer: Consumer): Promise<void> {
    await consumer.subscribe({ ...this.options.subscribe, topics: [this.topic] });
    await consumer.run({ ...this.options.run, eachMessage: this.getMessageHandler() });
  }

  override getHandlerByPattern(pattern: string) {
    return super.getHandlerByPattern(pattern === this.topic ? TRANSFER_EVENTS : pattern);
  }

  private async startUntilClosed(): Promise<void> {
    for (let waitMs = FIRST_RETRY_MS; !this.closed; waitMs = Math.min(MAX_RETRY_MS, waitMs * 2)) {
      try {
        this.client = await this.createClient();
        await this.start(() => undefined);
        return;
      } catch (error) {
        await super.close().catch(() => undefined);
        if (this.closed) return;
        this.logger.warn(`Kafka consumer not started (${(error as Error).message}); retrying in ${waitMs} ms`);
        await new Promise<void>((resolve) => {
          this.wake = resolve;
          setTimeout(resolve, waitMs).unref();
        });
      }
    }
  }
}

/** Cluster mode only: consumes the transfer topic and routes each record to the `@EventPattern(TRANSFER_EVENTS)` handlers. */
export async function startTransferEventConsumer(app: INestApplication, config: AppConfig): Promise<void> {
  if (config.kafkaBrokers.length === 0) return;
  const strategy: CustomStrategy = { strategy: new TransferEventsServer(config.kafkaTopic, consumerOptions(config)) };
  app.connectMicroservice(strategy);
  await app.startAllMicroservices();
}
