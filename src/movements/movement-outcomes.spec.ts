import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ERROR_DESCRIPTORS } from '../common/errors/error-code';
import { findRepoRoot } from '../common/repo-root';
import { readSqlFunctionFiles } from '../database/sql-functions';
import {
  MOVEMENT_REFUSALS,
  movementOutcomeCodes,
  outcomeResponseStatusSql,
  responseStatusOf,
  UNSTORED_CODES,
} from './movement-outcomes';

const STATUS_FILE = join(findRepoRoot(), 'src', 'idempotency', 'sql', 'outcome_response_status.sql');

// Every way a function file writes an outcome code: assigned to v_code, built with
// jsonb_build_object('code', ...), or written as a JSON literal {"code": ...}.
const CODE_IN_SQL = [/\bv_code\s*:=\s*'([a-z-]+)'/g, /'code',\s*'([a-z-]+)'/g, /"code":\s*"([a-z-]+)"/g];

const withoutComments = (sql: string) => sql.replace(/--.*$/gm, '');

/** Every outcome code any database function file can return, read from the canonical .sql files. */
function codesInSql(): Set<string> {
  const codes = new Set<string>();
  for (const file of readSqlFunctionFiles()) {
    if (file.name === 'outcome_response_status') continue; // generated from the vocabulary itself
    const sql = withoutComments(file.sql);
    for (const pattern of CODE_IN_SQL) for (const match of sql.matchAll(pattern)) codes.add(match[1]);
  }
  return codes;
}

describe('the movement outcome vocabulary', () => {
  it('knows every code the SQL functions can return, and nothing they cannot', () => {
    const sql = codesInSql();
    expect([...sql].sort()).toEqual([...movementOutcomeCodes()].sort());
  });

  it('leaves HTTP out of the SQL: no function file but the generated lookup names a status', () => {
    const withStatuses = readSqlFunctionFiles()
      .filter((file) => file.name !== 'outcome_response_status')
      .filter((file) =>
        /\b(20[01]|4(0[0-9]|22|29)|50[0-9])\b|p_status|p_response_status/.test(withoutComments(file.sql)),
      )
      .map((file) => file.name);
    expect(withStatuses).toEqual([]);
  });

  it('maps every refusal onto a problem of the one error table', () => {
    for (const refusal of Object.values(MOVEMENT_REFUSALS)) expect(ERROR_DESCRIPTORS[refusal.problem]).toBeDefined();
    expect(responseStatusOf('completed')).toBe(201);
    expect(responseStatusOf('self-transfer')).toBe(400);
    expect(responseStatusOf('not-transaction-receiver')).toBe(403);
    expect(responseStatusOf('payment-request-not-open')).toBe(409);
  });

  it('generates outcome_response_status.sql: every stored code and its status, nothing else', () => {
    if (process.env.UPDATE_SQL === '1') writeFileSync(STATUS_FILE, outcomeResponseStatusSql());
    const file = readFileSync(STATUS_FILE, 'utf8');
    expect(file).toBe(outcomeResponseStatusSql());
    const mapped = [...file.matchAll(/WHEN '([a-z-]+)' THEN (\d{3})/g)].map((match) => match[1]);
    const stored = movementOutcomeCodes().filter((code) => !(UNSTORED_CODES as readonly string[]).includes(code));
    expect(mapped.sort()).toEqual(stored.sort());
  });
});
