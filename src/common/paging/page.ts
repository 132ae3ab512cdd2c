import { invalidRequest, ValidationError } from '../errors/api-error';
import { decodeCursor, encodeCursor } from './cursor';

export const DEFAULT_PAGE_SIZE = 10;
export const MAX_PAGE_SIZE = 100;

export interface PageRequest<SortKey extends string = string> {
  page: number;
  size: number;
  sortBy: SortKey;
}

export interface Page<T> {
  content: T[];
  page: number;
  size: number;
  totalElements: number;
  totalPages: number;
  first: boolean;
  last: boolean;
}

export type Query = Record<string, unknown> | undefined;

export type PageBounds = Omit<PageRequest, 'sortBy'>;

/**
 * Reads page and size. A value that is not an integer is a type mismatch (400);
 * an integer out of range is a validation failure (422).
 */
export function readPageBounds(query: Query): PageBounds {
  return readPaging(query, {});
}

/** As readPageBounds, plus sortBy from a fixed allow-list (anything else is 422). */
export function readPageRequest<SortKey extends string>(
  query: Query,
  sort: { allowed: readonly SortKey[]; fallback: SortKey },
): PageRequest<SortKey> {
  const sortBy = (single(query, 'sortBy') ?? sort.fallback) as SortKey;
  const errors: Record<string, string> = {};
  if (!sort.allowed.includes(sortBy)) errors.sortBy = `sortBy must be one of: ${sort.allowed.join(', ')}`;
  return { ...readPaging(query, errors), sortBy };
}

function readPaging(query: Query, errors: Record<string, string>): PageBounds {
  const page = readInteger(query, 'page', 0);
  const size = readInteger(query, 'size', DEFAULT_PAGE_SIZE);
  if (page < 0) errors.page = 'page must not be less than 0';
  if (size < 1) errors.size = 'size must not be less than 1';
  if (size > MAX_PAGE_SIZE) errors.size = `size must not be greater than ${MAX_PAGE_SIZE}`;
  if (Object.keys(errors).length > 0) throw new ValidationError(errors, 'Invalid paging parameters');
  return { page, size };
}

export function toPage<T>(content: T[], request: PageBounds, totalElements: number): Page<T> {
  const totalPages = Math.ceil(totalElements / request.size);
  return {
    content,
    page: request.page,
    size: request.size,
    totalElements,
    totalPages,
    first: request.page === 0,
    last: request.page >= totalPages - 1,
  };
}

/**
 * The ledger and transaction lists: the spec's offset paging, or keyset paging after the row a
 * cursor names. A keyset page costs the same at any depth; an offset page must skip what is before it.
 */
export type ListRequest<SortKey extends string = string> =
  ({ kind: 'offset' } & PageRequest<SortKey>) | { kind: 'cursor'; size: number; sortBy: SortKey; afterId: string };

/** A page read after a cursor: no counts (they would cost a scan of the whole list). */
export interface CursorPage<T> {
  content: T[];
  size: number;
  first: false;
  last: boolean;
  nextCursor: string | null;
}

export type ListPage<T> = (Page<T> & { nextCursor: string | null }) | CursorPage<T>;

/**
 * page, size, sortBy (when the list offers a choice) and cursor. A cursor with page is 400; a
 * sortBy other than the one the cursor was issued for is 400 too, since the position means
 * nothing in another order.
 */
export function readListRequest<SortKey extends string>(
  query: Query,
  sort: { allowed: readonly SortKey[]; fallback: SortKey; fromQuery: boolean },
): ListRequest<SortKey> {
  const cursor = single(query, 'cursor');
  // Empty is not absent: `cursor=` once silently answered the first page.
  if (cursor === '') throw invalidRequest('cursor must not be empty: omit it for the first page');
  if (cursor === undefined) {
    const request = sort.fromQuery ? readPageRequest(query, sort) : { ...readPageBounds(query), sortBy: sort.fallback };
    return { kind: 'offset', ...request };
  }
  if (query?.page !== undefined) throw invalidRequest('cursor and page cannot be combined: use one or the other');
  const position = decodeCursor(cursor);
  const requested = sort.fromQuery ? single(query, 'sortBy') : undefined;
  const errors: Record<string, string> = {};
  if (requested !== undefined && !sort.allowed.includes(requested as SortKey)) {
    errors.sortBy = `sortBy must be one of: ${sort.allowed.join(', ')}`;
  }
  const { size } = readPaging(query, errors);
  if (
    !sort.allowed.includes(position.sortBy as SortKey) ||
    (requested !== undefined && requested !== position.sortBy)
  ) {
    throw invalidRequest(`cursor was issued for another order than sortBy=${requested ?? sort.fallback}`);
  }
  return { kind: 'cursor', size, sortBy: position.sortBy as SortKey, afterId: position.id };
}

/** rows: up to size + 1 rows read after the cursor; the extra one only tells whether more follow. */
export function toCursorPage<T>(rows: T[], request: { size: number; sortBy: string }, idOf: (row: T) => string) {
  const content = rows.slice(0, request.size);
  const more = rows.length > request.size;
  const page: CursorPage<T> = { content, size: request.size, first: false, last: !more, nextCursor: null };
  if (more) page.nextCursor = encodeCursor({ sortBy: request.sortBy, id: idOf(content[content.length - 1]) });
  return page;
}

/** An offset page also names its last row, so a client can carry on with cursors from any page. */
export function withNextCursor<T>(page: Page<T>, sortBy: string, idOf: (row: T) => string) {
  const lastRow = page.content[page.content.length - 1];
  const nextCursor = !page.last && lastRow !== undefined ? encodeCursor({ sortBy, id: idOf(lastRow) }) : null;
  return { ...page, nextCursor };
}

/** A query parameter given at most once (a repeated one is 400). */
export function single(query: Query, name: string): string | undefined {
  const value = query?.[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw invalidRequest(`${name} must be given once`);
  return value;
}

/** A query parameter given at most once and from a fixed list (anything else is 422). */
export function readOneOf<T extends string>(query: Query, name: string, allowed: readonly T[]): T | undefined {
  const value = single(query, name);
  if (value !== undefined && !allowed.includes(value as T)) {
    throw new ValidationError({ [name]: `${name} must be one of: ${allowed.join(', ')}` });
  }
  return value as T | undefined;
}

/** Absent is the default; present but empty (`size=`) is not an integer, as the schema says. */
function readInteger(query: Query, name: string, fallback: number): number {
  const raw = single(query, name);
  if (raw === undefined) return fallback;
  if (!/^-?\d{1,9}$/.test(raw.trim())) throw invalidRequest(`${name} must be an integer, got "${raw}"`);
  return Number(raw.trim());
}

/**
 * One read path for the lists with both kinds of paging: the rows of the same repository query
 * (offset or after a cursor, size + 1 rows for the latter), in the page shape each kind answers with.
 */
export function toListPage<T extends { id: string }>(request: ListRequest, rows: T[], total: number): ListPage<T> {
  if (request.kind === 'offset') return withNextCursor(toPage(rows, request, total), request.sortBy, rowId);
  return toCursorPage(rows, request, rowId);
}

const rowId = (row: { id: string }) => row.id;

/** A list page with its rows turned into their response form. */
export function mapPage<T, R>(page: ListPage<T>, toResponse: (row: T) => R): ListPage<R> {
  return { ...page, content: page.content.map(toResponse) } as ListPage<R>;
}
