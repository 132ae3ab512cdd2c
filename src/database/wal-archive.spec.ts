import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { walArchiveFlags, walIncomingDir } from './wal-archive';

/** archive_command as PostgreSQL runs it: %p and %f replaced, %% made %, then through the shell. */
function runArchiveCommand(flags: string[], walPath: string, walName: string): void {
  const command = flags
    .find((flag) => flag.startsWith('archive_command='))!
    .slice('archive_command='.length)
    .replace(/%(.)/g, (_, key: string) => (key === 'p' ? walPath : key === 'f' ? walName : key));
  execFileSync('sh', ['-c', command]);
}

describe('WAL archiving into Barman', () => {
  let root: string;
  beforeEach(() => (root = mkdtempSync(join(tmpdir(), 'payments-wal-'))));
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it("copies a segment into Barman's incoming directory once, whatever the path holds", () => {
    const backupDir = join(root, "odd 'name' 100%");
    const incoming = walIncomingDir(backupDir);
    expect(incoming).toBe(join(backupDir, 'payments', 'incoming'));
    mkdirSync(incoming, { recursive: true });
    const segment = join(root, 'segment');
    writeFileSync(segment, 'first');
    const flags = walArchiveFlags(incoming);
    expect(flags).toEqual(expect.arrayContaining(['archive_mode=on', 'archive_timeout=60']));

    runArchiveCommand(flags, segment, '000000010000000000000001');
    expect(readFileSync(join(incoming, '000000010000000000000001'), 'utf8')).toBe('first');
    // A segment already archived is never overwritten: the command fails, and PostgreSQL retries.
    writeFileSync(segment, 'second');
    expect(() => runArchiveCommand(flags, segment, '000000010000000000000001')).toThrow();
    expect(readFileSync(join(incoming, '000000010000000000000001'), 'utf8')).toBe('first');
  });
});
