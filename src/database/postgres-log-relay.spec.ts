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
});
