import { readSqlFunctionFiles } from '../database/sql-functions';

/** The transfer functions: the single one, the batch, and what they share. */
const TRANSFER_FILES = ['transfer_apply', 'transfer_funds_batch', 'transfer_refusal'];

/**
 * What writes each rule: its outcome code, or the call that decides it. (The writes of a completed
 * transfer stay two, row by row and set-based, each calling payment_request_settle once.)
 */
const RULES = ['payment_request_open(', 'self-transfer', 'user-not-found', 'limits_refusal(', 'insufficient-balance'];

const withoutComments = (sql: string) => sql.replace(/--.*$/gm, '');

describe('the transfer rules', () => {
  const files = readSqlFunctionFiles().filter((file) => TRANSFER_FILES.includes(file.name));

  it('reads every transfer function', () => {
    expect(files.map((file) => file.name).sort()).toEqual(TRANSFER_FILES);
  });

  it.each(RULES)('%s is written in one transfer function, once', (rule) => {
    const uses = files.flatMap((file) =>
      withoutComments(file.sql)
        .split(rule)
        .slice(1)
        .map(() => file.name),
    );
    expect(uses).toHaveLength(1);
  });
});
