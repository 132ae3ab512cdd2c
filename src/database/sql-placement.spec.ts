import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

// Services, jobs, runners and controllers reach data only through the repositories' named methods
// (src/<module>/<table>.repository.ts); the SQL, the PL/pgSQL calls included, lives there.

const SRC = join(__dirname, '..');
const CHECKED_FILE = /(\.service|\.job|\.controller|-runner)\.ts$/;

/** What may stay, and why. Keep it short: each entry is a file that sends SQL itself. */
const ALLOWED: Record<string, string> = {
  'actuator/health.service.ts':
    'the readiness probe sends SELECT 1: it asks whether a connection answers, reads no table',
};

const QUERY_CALL = /\.query\s*[<(]/;
const SQL_STATEMENT = /\b(SELECT|INSERT|UPDATE|DELETE)\b[\s\S]*\b(FROM|INTO|SET)\b/;
const LITERAL = /`(?:\\[\s\S]|[^`\\])*`|'(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*"/g;

function withoutComments(source: string): string {
  return source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:])\/\/.*$/gm, '$1');
}

/** Why the source sends SQL itself, or nothing when it does not. */
function sqlFindings(source: string): string[] {
  const code = withoutComments(source);
  const findings = QUERY_CALL.test(code) ? ['calls .query()'] : [];
  const statements = (code.match(LITERAL) ?? []).filter((literal) => SQL_STATEMENT.test(literal));
  return [...findings, ...statements.map((literal) => `holds SQL: ${literal.slice(0, 60).replace(/\s+/g, ' ')}`)];
}

function checkedFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return checkedFiles(path);
    return CHECKED_FILE.test(entry.name) ? [relative(SRC, path)] : [];
  });
}

describe('where SQL lives', () => {
  it('finds a .query() call and a statement in a template string, not SQL words in a comment', () => {
    expect(sqlFindings('await this.pool.query<{ n: number }>(COUNT);')).toEqual(['calls .query()']);
    expect(sqlFindings('const q = `SELECT id\n  FROM users WHERE id = $1`;')).toEqual([
      'holds SQL: `SELECT id FROM users WHERE id = $1`',
    ]);
    expect(sqlFindings("db.run('UPDATE users SET balance = 0')")).toHaveLength(1);
    expect(sqlFindings('// claims a row (SELECT ... FOR UPDATE SKIP LOCKED) from the queue\nrun();')).toEqual([]);
    expect(sqlFindings('/** DELETE the rows FROM the table */ purge();')).toEqual([]);
  });

  it('keeps it out of services, jobs, runners and controllers', () => {
    const files = checkedFiles(SRC);
    expect(files).toEqual(
      expect.arrayContaining(['auth/role-grants.service.ts', 'schedules/scheduled-transfer-runner.ts']),
    );
    const offenders = files
      .filter((file) => !(file in ALLOWED))
      .map((file) => ({ file, findings: sqlFindings(readFileSync(join(SRC, file), 'utf8')) }))
      .filter(({ findings }) => findings.length > 0);
    expect(offenders).toEqual([]);
  });

  it('allows only files that still send SQL', () => {
    const stale = Object.keys(ALLOWED).filter(
      (file) => sqlFindings(readFileSync(join(SRC, file), 'utf8')).length === 0,
    );
    expect(stale).toEqual([]);
  });
});
