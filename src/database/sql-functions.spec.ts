import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findRepoRoot } from '../common/repo-root';
import { MOVEMENT_ENTRIES, readSqlFunctionFiles, sqlDefinitions } from './sql-functions';

/** A src/ of one fake rules function per entry, with the real template. */
function fixture(rules: (name: string) => string): string {
  const root = mkdtempSync(join(tmpdir(), 'sql-functions-'));
  mkdirSync(join(root, 'rules', 'sql'), { recursive: true });
  cpSync(join(findRepoRoot(), 'src', 'movements', 'sql'), join(root, 'movements', 'sql'), { recursive: true });
  for (const name of Object.values(MOVEMENT_ENTRIES))
    writeFileSync(join(root, 'rules', 'sql', `${name}.sql`), rules(name));
  return root;
}

describe('the movement entry functions, generated from one template', () => {
  let root: string;
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it("declares the key, the rules function's own parameters, then the context, and passes the rules' on", () => {
    root = fixture(
      (name) => `-- p_commented numeric(1, 2),
CREATE OR REPLACE FUNCTION ${name}(
  p_owner text,
  p_amount numeric(19,4),
  p_note text, p_context jsonb
) RETURNS jsonb LANGUAGE sql AS $$ SELECT '{}'::jsonb $$;`,
    );
    const transfer = readSqlFunctionFiles(root).find((file) => file.name === 'transfer_funds');
    expect(transfer?.sql).toContain(`CREATE OR REPLACE FUNCTION transfer_funds(
  p_owner text,
  p_idempotency_key text,
  p_request_hash text,
  p_amount numeric(19,4),
  p_note text,
  p_context jsonb
) RETURNS TABLE (result jsonb, replayed boolean)`);
    expect(transfer?.sql).toContain('v_decided := transfer_apply(p_owner, p_amount, p_note, p_context);');
    expect(transfer?.sql).not.toMatch(/\{\{|\}\}/);
  });

  it('refuses to start without the rules function an entry wraps', () => {
    root = fixture((name) => `CREATE OR REPLACE FUNCTION ${name}_renamed(p_owner text) RETURNS jsonb`);
    expect(() => readSqlFunctionFiles(root)).toThrow(/No CREATE OR REPLACE FUNCTION transfer_apply\(/);
    rmSync(join(root, 'rules', 'sql', 'transfer_apply.sql'));
    expect(() => readSqlFunctionFiles(root)).toThrow(/transfer_funds wraps transfer_apply, which has no file/);
  });

  it('the checked-in entries: one generated function each, in no file of their own', () => {
    const files = readSqlFunctionFiles();
    for (const name of Object.keys(MOVEMENT_ENTRIES)) {
      expect(files.filter((file) => file.name === name).map((file) => file.path)).toEqual([
        join(findRepoRoot(), 'src', 'movements', 'sql', 'movement_entry.sql.template'),
      ]);
    }
  });
});

describe('one home for each function and trigger', () => {
  let root: string;
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const rules = (name: string) => `CREATE OR REPLACE FUNCTION ${name}(p_owner text, p_context jsonb) RETURNS jsonb`;
  const guard = (name: string, table = 'accounts') => `-- CREATE OR REPLACE FUNCTION commented_out()
CREATE OR REPLACE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- CREATE OR REPLACE FUNCTION not_a_definition() inside the body
  RETURN NEW;
END
$$;
CREATE OR REPLACE TRIGGER trg_${table}_guard BEFORE UPDATE OF id ON ${table} FOR EACH ROW EXECUTE FUNCTION ${name}();`;

  it("reads each file's functions and triggers, not what comments and bodies mention", () => {
    root = fixture(rules);
    writeFileSync(join(root, 'rules', 'sql', 'accounts_guard.sql'), guard('accounts_guard'));
    const file = readSqlFunctionFiles(root).find((candidate) => candidate.name === 'accounts_guard');
    expect(sqlDefinitions(file?.sql ?? '')).toEqual({
      functions: ['accounts_guard'],
      triggers: ['accounts.trg_accounts_guard'],
    });
  });

  it('refuses a function or a trigger defined in two files, or twice in one', () => {
    root = fixture(rules);
    writeFileSync(join(root, 'rules', 'sql', 'accounts_guard.sql'), guard('accounts_guard'));
    writeFileSync(join(root, 'rules', 'sql', 'accounts_guard_again.sql'), guard('accounts_guard_again'));
    expect(() => readSqlFunctionFiles(root)).toThrow(/trigger accounts\.trg_accounts_guard is defined twice/);
    writeFileSync(join(root, 'rules', 'sql', 'accounts_guard_again.sql'), guard('accounts_guard_again', 'others'));
    expect(() => readSqlFunctionFiles(root)).not.toThrow();
    writeFileSync(
      join(root, 'rules', 'sql', 'accounts_guard_again.sql'),
      `${guard('accounts_guard_again', 'others')}\n${rules('transfer_apply')};`,
    );
    expect(() => readSqlFunctionFiles(root)).toThrow(/function transfer_apply is defined twice/);
    writeFileSync(
      join(root, 'rules', 'sql', 'accounts_guard_again.sql'),
      `${guard('accounts_guard_again', 'others')}\n${guard('accounts_guard_again', 'elsewhere')}`,
    );
    expect(() => readSqlFunctionFiles(root)).toThrow(/function accounts_guard_again is defined twice/);
  });

  it('refuses a file that does not define the function it is named after', () => {
    root = fixture(rules);
    writeFileSync(join(root, 'rules', 'sql', 'accounts_guard.sql'), guard('accounts_guarded'));
    expect(() => readSqlFunctionFiles(root)).toThrow(/accounts_guard\.sql does not define the function accounts_guard/);
  });

  it('the checked-in files define each function and trigger once', () => {
    expect(() => readSqlFunctionFiles()).not.toThrow();
  });
});
