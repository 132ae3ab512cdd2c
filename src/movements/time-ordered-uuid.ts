import { randomBytes } from 'node:crypto';

/**
 * A UUID version 7 (RFC 9562): the time in milliseconds, then 74 random bits. A movement's
 * reference and event ids are keys of unique indexes; random (v4) keys land on a random leaf page
 * each, and after every checkpoint the first write to each of those pages logs it whole, so the
 * WAL per transfer grew with the index (issue 41). Time-ordered keys go to the rightmost leaves.
 */
export function timeOrderedUuid(now: number = Date.now()): string {
  const bytes = randomBytes(16);
  bytes.writeUIntBE(now, 0, 6);
  bytes[6] = 0x70 | (bytes[6] & 0x0f);
  bytes[8] = 0x80 | (bytes[8] & 0x3f);
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
