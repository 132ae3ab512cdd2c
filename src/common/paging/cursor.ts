import { invalidRequest } from '../errors/api-error';

/**
 * What a cursor points at: the last row of the previous page, by its internal id, and the
 * order it was read in. The query looks that row's sort values up itself, so the cursor
 * never carries a timestamp that JavaScript would round to milliseconds (the ledger's adds the
 * row's time as exact microseconds: src/ledger/ledger-cursor.ts).
 */
export interface CursorPosition {
  sortBy: string;
  id: string;
}

const VERSION = 1;
const MAX_CURSOR_LENGTH = 200;
const MAX_BIGINT = 9223372036854775807n;

/** Opaque to clients: base64url of a small JSON object. */
export function encodeCursor(position: CursorPosition): string {
  return Buffer.from(JSON.stringify({ v: VERSION, s: position.sortBy, k: position.id })).toString('base64url');
}

/** A cursor this service did not write, or wrote for another order, is a bad request (400). */
export function decodeCursor(text: string): CursorPosition {
  const invalid = () => invalidRequest('cursor is not a value returned as nextCursor by this list');
  if (text.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(text)) throw invalid();
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  const { v, s, k } = (decoded ?? {}) as { v?: unknown; s?: unknown; k?: unknown };
  if (v !== VERSION || typeof s !== 'string' || typeof k !== 'string' || !/^[1-9]\d{0,18}$/.test(k)) throw invalid();
  if (BigInt(k) > MAX_BIGINT) throw invalid();
  return { sortBy: s, id: k };
}
