import type { Logger } from '@nestjs/common';

/** Lines kept for the report of an exit: enough for the cause and its context. */
const TAIL_LINES = 30;
const SEVERE = /\b(FATAL|PANIC):/;
// What each backend says when a shutdown was asked for (by the service, or by Ctrl-C reaching
// PostgreSQL in the same process group before the service hears of it): a consequence, not a cause.
// An autovacuum worker says the same when a DROP DATABASE or a shutdown cancels it: work that will
// simply be redone. An exit that was not asked for is still reported, with these lines, by reportTail.
const SHUTDOWN_NOTICE = /FATAL:\s+terminating (connection|autovacuum process) due to administrator command$/;
// An autovacuum worker is told a database's OID; when a DROP DATABASE lands between the launcher's
// choice and the worker's start, the worker finds no such database and exits, and nothing is lost.
// A client names its database, so its refusal ('database "name" does not exist') is still reported.
const DROPPED_BEFORE_AUTOVACUUM = /FATAL:\s+database \d+ does not exist$/;
// A connection tried while the server starts (a pool reconnecting during a restart): the start is the news.
const STARTING_UP = /FATAL:\s+the database system is starting up$/;
/** FATALs that follow from something asked for, not causes: logged at verbose. */
const CONSEQUENCES = [SHUTDOWN_NOTICE, DROPPED_BEFORE_AUTOVACUUM, STARTING_UP];
const FAILED_LOGIN = /FATAL:\s+password authentication failed for user "([^"]*)"/;

/**
 * PostgreSQL's own log (its stderr) into the service's JSON log: FATAL and PANIC lines at
 * `error` as they come, everything else at `verbose`, and the last lines kept so that an exit
 * or a failed start can be explained at `error` without raising the log level.
 */
export class PostgresLogRelay {
  private readonly tail: string[] = [];
  private partial = '';
  /** While the service stops PostgreSQL itself, its "terminating connection" FATALs are expected. */
  quiet = false;
  /** Every failed password login is expected: a test database, whose tests try wrong passwords on purpose. */
  failedLoginsExpected = false;
  /** Per user, the failed logins announced by expectFailedLogin whose FATAL line has not come yet. */
  private readonly announcedFailedLogins = new Map<string, number>();

  constructor(private readonly logger: Logger) {}

  take(chunk: unknown): void {
    const lines = (this.partial + String(chunk)).split('\n');
    this.partial = lines.pop() ?? '';
    for (const raw of lines) this.line(raw.replace(/^\[STDERR\] /, '').trimEnd());
  }

  /**
   * Announces a login as `user` that may be refused on purpose (a trial of an older password): its
   * FATAL line, which can come before or after the client hears of the refusal, is logged at
   * `verbose`. Call the returned function unless the login was refused for its password, so
   * that a later refusal, a real one, is reported at `error` again.
   */
  expectFailedLogin(user: string): () => void {
    this.announcedFailedLogins.set(user, (this.announcedFailedLogins.get(user) ?? 0) + 1);
    let withdrawn = false;
    return () => {
      if (withdrawn) return;
      withdrawn = true;
      const left = (this.announcedFailedLogins.get(user) ?? 0) - 1;
      if (left > 0) this.announcedFailedLogins.set(user, left);
      else this.announcedFailedLogins.delete(user);
    };
  }

  /** Logs the last lines at `error`, with why they are shown; clears them. */
  reportTail(reason: string): void {
    if (this.partial) this.line(this.partial);
    this.partial = '';
    if (this.tail.length === 0) return;
    this.logger.error(`${reason}; PostgreSQL's last lines:\n${this.tail.join('\n')}`);
    this.tail.length = 0;
  }

  /** The most recent FATAL or PANIC line, to name the cause in one line. */
  lastSevereLine(): string | undefined {
    return [...this.tail].reverse().find((line) => SEVERE.test(line));
  }

  private line(line: string): void {
    if (!line) return;
    this.tail.push(line);
    if (this.tail.length > TAIL_LINES) this.tail.shift();
    if (SEVERE.test(line) && !this.quiet && !this.consequence(line) && !this.expectedFailedLogin(line)) {
      this.logger.error(`PostgreSQL: ${line}`);
    } else this.logger.verbose(line);
  }

  private consequence(line: string): boolean {
    return CONSEQUENCES.some((pattern) => pattern.test(line));
  }

  private expectedFailedLogin(line: string): boolean {
    const user = FAILED_LOGIN.exec(line)?.[1];
    if (user === undefined) return false;
    if (this.failedLoginsExpected) return true;
    const announced = this.announcedFailedLogins.get(user) ?? 0;
    if (announced === 0) return false;
    if (announced > 1) this.announcedFailedLogins.set(user, announced - 1);
    else this.announcedFailedLogins.delete(user);
    return true;
  }
}
