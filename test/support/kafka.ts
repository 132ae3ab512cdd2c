import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Kafka, logLevel, type Consumer } from 'kafkajs';
import { findFreePort, REPO_ROOT } from '../../scripts/lib/service-process';

const BROKER_SCRIPT = join(REPO_ROOT, 'scripts', 'kafka', 'broker');

/** A real Apache Kafka broker for a test file: KAFKA_TEST_BROKERS if given, else one started by scripts/kafka/broker. */
export class TestBroker {
  private constructor(
    readonly brokers: string,
    private readonly owned?: { port: number; dataDir: string },
  ) {}

  static async start(): Promise<TestBroker> {
    if (process.env.KAFKA_TEST_BROKERS) return new TestBroker(process.env.KAFKA_TEST_BROKERS);
    const port = await findFreePortPair();
    const dataDir = mkdtempSync(join(tmpdir(), 'payments-kafka-'));
    const broker = new TestBroker(`127.0.0.1:${port}`, { port, dataDir });
    broker.run('start');
    return broker;
  }

  get controllable(): boolean {
    return this.owned !== undefined;
  }

  /** Starts it again after stop(), with its data. */
  restart(): void {
    this.run('start');
  }

  stop(): void {
    this.run('stop');
  }

  /** After the file's tests: stops a broker we started and deletes its data directory. */
  dispose(): void {
    if (!this.owned) return;
    try {
      this.stop();
    } finally {
      rmSync(this.owned.dataDir, { recursive: true, force: true });
    }
  }

  /**
   * stop() and restart() without blocking this process: a service started in this process (a test
   * app) keeps serving, and its relay keeps trying, while the broker goes and comes back.
   */
  async stopInBackground(): Promise<void> {
    await this.runInBackground('stop');
  }

  async restartInBackground(): Promise<void> {
    await this.runInBackground('start');
  }

  private async runInBackground(command: 'start' | 'stop'): Promise<void> {
    if (!this.owned) throw new Error('the broker from KAFKA_TEST_BROKERS is not ours to start or stop');
    await promisify(execFile)(BROKER_SCRIPT, [command, String(this.owned.port), this.owned.dataDir], {
      timeout: 180_000,
    });
  }

  private run(command: 'start' | 'stop'): void {
    if (!this.owned) throw new Error('the broker from KAFKA_TEST_BROKERS is not ours to start or stop');
    // The script's progress (Maven's, on the first run) is shown only when it fails: green runs stay quiet.
    try {
      execFileSync(BROKER_SCRIPT, [command, String(this.owned.port), this.owned.dataDir], {
        stdio: ['ignore', 'ignore', 'pipe'],
        timeout: 180_000,
      });
    } catch (error) {
      const stderr = String((error as { stderr?: Buffer }).stderr ?? '');
      throw new Error(`scripts/kafka/broker ${command} failed: ${(error as Error).message}\n${stderr}`, {
        cause: error,
      });
    }
  }
}

/**
 * scripts/kafka/broker's controller listens on port + 1, so both must be free, and stay free while
 * the broker is stopped: then the clients retrying to reach it take a new ephemeral port for every
 * attempt, and one of them once took the controller's, so the broker could not start again. Both
 * are taken below the kernel's ephemeral range, where no outgoing connection is given a port.
 */
async function findFreePortPair(): Promise<number> {
  const below = ephemeralRangeStart();
  for (let attempt = 0; attempt < 50; attempt++) {
    const port =
      below > LOWEST_FIXED_PORT + 100
        ? LOWEST_FIXED_PORT + Math.floor(Math.random() * (below - LOWEST_FIXED_PORT - 1))
        : await findFreePort();
    if (port < 65535 && (await isFree(port)) && (await isFree(port + 1))) return port;
  }
  throw new Error('no two free consecutive ports for a Kafka broker and its controller');
}

const LOWEST_FIXED_PORT = 20_000;

function ephemeralRangeStart(): number {
  try {
    return Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || 0;
  } catch {
    return 0;
  }
}

function isFree(port: number): Promise<boolean> {
  const server = createServer();
  return new Promise((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

export interface ReceivedRecord {
  key: string;
  value: Record<string, any>;
  headers: Record<string, string>;
  partition: number;
  offset: string;
}

/** Reads a topic from the beginning and keeps every record, as a downstream consumer would see them. */
export class TopicReader {
  readonly records: ReceivedRecord[] = [];
  private constructor(private readonly consumer: Consumer) {}

  static async open(brokers: string, topic: string): Promise<TopicReader> {
    const kafka = new Kafka({ clientId: 'test-reader', brokers: brokers.split(','), logLevel: logLevel.NOTHING });
    const consumer = kafka.consumer({ groupId: `test-reader-${topic}-${Date.now()}`, maxWaitTimeInMs: 100 });
    await consumer.connect();
    await waitForTopic(kafka, topic);
    await consumer.subscribe({ topic, fromBeginning: true });
    const reader = new TopicReader(consumer);
    await consumer.run({
      eachMessage: async ({ message, partition }) => {
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(message.headers ?? {})) headers[name] = String(value);
        reader.records.push({
          key: message.key!.toString(),
          value: JSON.parse(message.value!.toString()),
          headers,
          partition,
          offset: message.offset,
        });
      },
    });
    return reader;
  }

  /** Waits until `predicate` holds for the records seen so far. */
  async waitFor(predicate: (records: ReceivedRecord[]) => boolean, timeoutMs = 20_000): Promise<ReceivedRecord[]> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate(this.records)) {
      if (Date.now() > deadline) throw new Error(`timed out; ${this.records.length} records so far`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return this.records;
  }

  for(transactionReferenceId: string): ReceivedRecord[] {
    return this.records.filter((r) => r.value.transactionReferenceId === transactionReferenceId);
  }

  close(): Promise<void> {
    return this.consumer.disconnect();
  }
}

async function waitForTopic(kafka: Kafka, topic: string): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    for (let i = 0; i < 200; i++) {
      if ((await admin.listTopics()).includes(topic)) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`topic ${topic} was never created`);
  } finally {
    await admin.disconnect();
  }
}
