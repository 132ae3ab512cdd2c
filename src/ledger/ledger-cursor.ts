import { invalidRequest } from '../common/errors/api-error';
import { encodeCursor } from '../common/paging/cursor';
import { type ListPage, type ListRequest, type Query, readListRequest, single } from '../common/paging/page';
import type { LedgerAnchor, LedgerPageRow } from './ledger-entries.repository';

/**
 * The ledger's cursor is the lists' cursor (src/common/paging/cursor.ts: version, order, the
 * entry's id) plus `t`, the entry's created_at in microseconds since 1970 as PostgreSQL stores it
 * (text, exact: no JavaScript Date in between), so that the next page is read by keyset on
 * (created_at, id) from the ledger's index alone (ledger-entries.repository.ts). A cursor without
 * `t`, as issued before, still names its entry by id.
 */
const SORT_BY = 'createdAt';

/** 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999Z, in microseconds since 1970. */
const EARLIEST = -62135596800000000n;
const LATEST = 253402300799999999n;

export type LedgerListRequest =
  Extract<ListRequest, { kind: 'offset' }> | (Extract<ListRequest, { kind: 'cursor' }> & { after: LedgerAnchor });

/** The ledger's page, size and cursor, as readListRequest reads them, with the cursor's entry. */
export function readLedgerListRequest(query: Query): LedgerListRequest {
  const request = readListRequest(query, { allowed: [SORT_BY], fallback: SORT_BY, fromQuery: false });
  if (request.kind === 'offset') return request;
  const createdAtMicros = cursorInstant(single(query, 'cursor')!);
  return { ...request, after: { id: request.afterId, createdAtMicros } };
}

/** A page whose nextCursor also carries its last entry's created_at. */
export function withLedgerCursor<T>(page: ListPage<T>, rows: LedgerPageRow[]): ListPage<T> {
  if (page.nextCursor === null) return page;
  const last = rows[page.content.length - 1];
  return { ...page, nextCursor: ledgerCursor({ id: last.id, createdAtMicros: last.createdAtMicros }) };
}

/** The lists' cursor for the entry, with its created_at added. */
export function ledgerCursor(entry: Required<LedgerAnchor>): string {
  const shared = decodeJson(encodeCursor({ sortBy: SORT_BY, id: entry.id })) as object;
  return Buffer.from(JSON.stringify({ ...shared, t: entry.createdAtMicros })).toString('base64url');
}

const decodeJson = (cursor: string): unknown => JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));

/** `t` of a cursor that decodeCursor has accepted; undefined when it has none. */
function cursorInstant(text: string): string | undefined {
  const { t } = decodeJson(text) as { t?: unknown };
  if (t === undefined) return undefined;
  if (typeof t !== 'string' || !/^-?(0|[1-9]\d{0,17})$/.test(t) || BigInt(t) < EARLIEST || BigInt(t) > LATEST) {
    throw invalidRequest('cursor is not a value returned as nextCursor by this list');
  }
  return t;
}
