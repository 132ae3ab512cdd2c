import { ApiError } from '../common/errors/api-error';
import { decodeCursor, encodeCursor } from '../common/paging/cursor';
import { ledgerCursor, readLedgerListRequest } from './ledger-cursor';

const raw = (json: string) => Buffer.from(json).toString('base64url');

describe('the ledger cursor', () => {
  it('is a list cursor that also carries its entry’s created_at to the microsecond', () => {
    const cursor = ledgerCursor({ id: '9223372036854775807', createdAtMicros: '1764547199999999' });
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(cursor)).toEqual({ sortBy: 'createdAt', id: '9223372036854775807' });
    expect(readLedgerListRequest({ cursor, size: '3' })).toEqual({
      kind: 'cursor',
      size: 3,
      sortBy: 'createdAt',
      afterId: '9223372036854775807',
      after: { id: '9223372036854775807', createdAtMicros: '1764547199999999' },
    });
  });

  it('reads a cursor issued without created_at as naming its entry by id alone', () => {
    const cursor = encodeCursor({ sortBy: 'createdAt', id: '42' });
    expect(readLedgerListRequest({ cursor })).toEqual(
      expect.objectContaining({ kind: 'cursor', after: { id: '42', createdAtMicros: undefined } }),
    );
  });

  it('leaves offset pages as they are', () => {
    expect(readLedgerListRequest({ page: '2', size: '5' })).toEqual({
      kind: 'offset',
      page: 2,
      size: 5,
      sortBy: 'createdAt',
    });
  });

  it.each([
    ['a number', '{"v":1,"s":"createdAt","k":"1","t":1764547199999999}'],
    ['not an integer', '{"v":1,"s":"createdAt","k":"1","t":"1764547199.999999"}'],
    ['a leading zero', '{"v":1,"s":"createdAt","k":"1","t":"01"}'],
    ['after year 9999', '{"v":1,"s":"createdAt","k":"1","t":"253402300800000000"}'],
    ['before year 1', '{"v":1,"s":"createdAt","k":"1","t":"-62135596800000001"}'],
    ['null', '{"v":1,"s":"createdAt","k":"1","t":null}'],
  ])('refuses a created_at that is %s with a 400 error', (_name, json) => {
    expect(() => readLedgerListRequest({ cursor: raw(json) })).toThrow(ApiError);
    try {
      readLedgerListRequest({ cursor: raw(json) });
    } catch (error) {
      expect((error as ApiError).code).toBe('invalid-request');
    }
  });
});
