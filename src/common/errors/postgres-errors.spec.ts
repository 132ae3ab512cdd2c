import { QueryFailedError } from 'typeorm';
import { isDatabaseUnavailable, isDiskFull, NoWritablePrimaryError } from './postgres-errors';

const pgError = (code: string, message = 'server said no') => Object.assign(new Error(message), { code });
const socketError = (code: string) => Object.assign(new Error(`connect ${code} 127.0.0.1:5432`), { code });

describe('isDatabaseUnavailable', () => {
  it.each([
    ['connection exception class 08', pgError('08006')],
    ['admin shutdown', pgError('57P01', 'terminating connection due to administrator command')],
    ['crash shutdown', pgError('57P02')],
    ['starting up', pgError('57P03', 'the database system is starting up')],
    ['too many connections', pgError('53300')],
    ['disk full', pgError('53100', 'could not extend file "base/16384/16385": No space left on device')],
    ['out of memory', pgError('53200')],
    ['a wrapped disk full', new QueryFailedError('INSERT', [], pgError('53100'))],
    ['connection refused', socketError('ECONNREFUSED')],
    ['connection reset', socketError('ECONNRESET')],
    ['host not found', socketError('ENOTFOUND')],
    ['a terminated connection', new Error('Connection terminated unexpectedly')],
    ['a pool acquisition timeout', new Error('timeout exceeded when trying to connect')],
    ['a wrapped admin shutdown', new QueryFailedError('SELECT 1', [], pgError('57P01'))],
    ['every address refused', new AggregateError([socketError('ECONNREFUSED'), socketError('ECONNREFUSED')])],
    ['a write on a standby or read-only server', pgError('25006', 'cannot execute INSERT in a read-only transaction')],
    ['a statement past its bound', pgError('57014', 'canceling statement due to statement timeout')],
    ['a server that did not answer within query_timeout', new Error('Query read timeout')],
    ['a connection closed because its server was demoted', new Error('Client was closed and is not queryable')],
    ['no writable primary among the hosts', new NoWritablePrimaryError('the server at db1:5432 is read-only')],
  ])('is true for %s', (_name, error) => {
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it.each([
    ['a unique violation', pgError('23505')],
    ['a wrapped check violation', new QueryFailedError('INSERT', [], pgError('23514'))],
    ['a provider fetch failure', new TypeError('fetch failed', { cause: socketError('ECONNREFUSED') })],
    ['a plain bug', new TypeError("Cannot read properties of undefined (reading 'x')")],
    ['nothing', undefined],
  ])('is false for %s', (_name, error) => {
    expect(isDatabaseUnavailable(error)).toBe(false);
  });
});

describe('isDiskFull', () => {
  it('is true for SQLSTATE 53100, wrapped or not, and false for the rest of class 53', () => {
    expect(isDiskFull(pgError('53100'))).toBe(true);
    expect(isDiskFull(new QueryFailedError('INSERT', [], pgError('53100')))).toBe(true);
    expect(isDiskFull(pgError('53300'))).toBe(false);
    expect(isDiskFull(undefined)).toBe(false);
  });
});
