import type { Logger } from '@nestjs/common';
import { PostgresLogRelay } from './postgres-log-relay';

function recordingLogger() {
  const lines: { level: string; message: string }[] = [];
  const logger = {
    error: (message: string) => lines.push({ level: 'error', message }),
    verbose: (message: string) => lines.push({ level: 'verbose', message }),
  } as unknown as Logger;
  return { lines, logger };
}

describe('PostgresLogRelay', () => {
  it('relays FATAL and PANIC lines at error as they come, the rest at verbose, across chunk boundaries', () => {
    const { lines, logger } = recordingLogger();
    const relay = new PostgresLogRelay(logger);
    relay.take('2026-11-23 UTC [7] LOG:  checkpoint starting\n2026-11-23 UTC [8] PAN');
    relay.take('IC:  could not write to file "pg_wal/xlogtemp.8": No space left on device\n');
    relay.take('[STDERR] 2026-11-23 UTC [9] FATAL:  the database system is in recovery mode\n');
    expect(lines).toEqual([
      { level: 'verbose', message: '2026-11-23 UTC [7] LOG:  checkpoint starting' },
      {
        level: 'error',
        message:
          'PostgreSQL: 2026-11-23 UTC [8] PANIC:  could not write to file "pg_wal/xlogtemp.8": No space left on device',
      },
      { level: 'error', message: 'PostgreSQL: 2026-11-23 UTC [9] FATAL:  the database system is in recovery mode' },
    ]);
    expect(relay.lastSevereLine()).toBe('2026-11-23 UTC [9] FATAL:  the database system is in recovery mode');
  });

  it('reports the last lines before an exit at error, once', () => {
    const { lines, logger } = recordingLogger();
    const relay = new PostgresLogRelay(logger);
    for (let i = 0; i < 40; i++) relay.take(`line ${i}\n`);
    lines.length = 0;
    relay.reportTail('Embedded PostgreSQL exited unexpectedly (SIGKILL)');
    relay.reportTail('again');
    expect(lines).toHaveLength(1);
    expect(lines[0].level).toBe('error');
    expect(lines[0].message.split('\n')).toEqual([
      "Embedded PostgreSQL exited unexpectedly (SIGKILL); PostgreSQL's last lines:",
      ...Array.from({ length: 30 }, (_, i) => `line ${i + 10}`),
    ]);
  });

  it('keeps the FATALs of a shutdown the service asked for out of the error log', () => {
    const { lines, logger } = recordingLogger();
    const relay = new PostgresLogRelay(logger);
    relay.quiet = true;
    relay.take('FATAL:  terminating connection due to administrator command\n');
    expect(lines.map((line) => line.level)).toEqual(['verbose']);
  });

  it('keeps the backends\' "terminating connection" FATALs of a shutdown it did not ask for (Ctrl-C) out of the error log too', () => {
    const { lines, logger } = recordingLogger();
    const relay = new PostgresLogRelay(logger);
    relay.take('2026-11-24 UTC [18231] FATAL:  terminating connection due to administrator command\n');
    relay.take('2026-11-24 UTC [18232] FATAL:  terminating connection due to unexpected postmaster exit\n');
    expect(lines.map((line) => line.level)).toEqual(['verbose', 'error']);
  });

  it('keeps an autovacuum worker cancelled by a DROP DATABASE or a shutdown out of the error log', () => {
    const { lines, logger } = recordingLogger();
    const relay = new PostgresLogRelay(logger);
    relay.take(
      '2026-11-24 08:04:02.091 UTC [3686] FATAL:  terminating autovacuum process due to administrator command\n',
    );
    relay.take('2026-11-24 08:04:02.092 UTC [3687] FATAL:  terminating autovacuum process due to unexpected signal\n');
    expect(lines.map((line) => line.level)).toEqual(['verbose', 'error']);
  });

  it('keeps an autovacuum worker that finds its database dropped out of the error log, not a client naming a missing one', () => {
    const { lines, logger } = recordingLogger();
    const relay = new PostgresLogRelay(logger);
    relay.take('2026-11-25 05:03:47.201 UTC [21285] FATAL:  database 32989 does not exist\n');
    relay.take('2026-11-25 05:03:47.305 UTC [21290] FATAL:  database "payments" does not exist\n');
    expect(lines.map((line) => line.level)).toEqual(['verbose', 'error']);
  });

  it('keeps the refusals of connections tried while the server starts (a pool reconnecting) out of the error log', () => {
    const { lines, logger } = recordingLogger();
    const relay = new PostgresLogRelay(logger);
    relay.take('2026-11-24 03:08:23.378 UTC [10658] FATAL:  the database system is starting up\n');
    relay.take('2026-11-24 03:08:23.378 UTC [10659] FATAL:  the database system is not yet accepting connections\n');
    expect(lines.map((line) => line.level)).toEqual(['verbose', 'error']);
  });

  const refused = (user: string) => `2026-11-24 UTC [5745] FATAL:  password authentication failed for user "${user}"\n`;

  it('keeps an announced failed login (a trial of an older password) out of the error log, once, whenever its line comes', () => {
    const { lines, logger } = recordingLogger();
    const relay = new PostgresLogRelay(logger);
    relay.expectFailedLogin('postgres');
    relay.expectFailedLogin('postgres');
    relay.take(refused('postgres'));
    relay.take(refused('postgres'));
    // Nothing more announced: a third refusal is a real one.
    relay.take(refused('postgres'));
    expect(lines.map((line) => line.level)).toEqual(['verbose', 'verbose', 'error']);
    expect(lines[2].message).toBe(`PostgreSQL: ${refused('postgres').trimEnd()}`);
  });

  it('reports a failed login at error when it was not announced for that user, or the announcement was withdrawn', () => {
    const { lines, logger } = recordingLogger();
    const relay = new PostgresLogRelay(logger);
    relay.expectFailedLogin('postgres');
    relay.take(refused('payments_app'));
    const withdraw = relay.expectFailedLogin('payments_owner');
    withdraw();
    withdraw();
    relay.take(refused('payments_owner'));
    relay.take(refused('postgres'));
    expect(lines.map((line) => `${line.level} ${/user "(\w+)"/.exec(line.message)![1]}`)).toEqual([
      'error payments_app',
      'error payments_owner',
      'verbose postgres',
    ]);
  });

  it('keeps every failed login out of the error log where they are expected (a test database), and nothing else', () => {
    const { lines, logger } = recordingLogger();
    const relay = new PostgresLogRelay(logger);
    relay.failedLoginsExpected = true;
    relay.take(refused('postgres'));
    relay.take('2026-11-24 UTC [5746] FATAL:  sorry, too many clients already\n');
    expect(lines.map((line) => line.level)).toEqual(['verbose', 'error']);
  });
});
