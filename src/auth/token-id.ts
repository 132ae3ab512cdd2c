import { randomBytes } from 'node:crypto';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

/**
 * A token id is a UUIDv7 (RFC 9562): unique, and it carries the issue time in milliseconds,
 * which "log out everywhere" needs (a token's `iat` has only second precision, so a login
 * right after such a logout would be refused for up to a second).
 */
export function newTokenId(now = Date.now()): string {
  const bytes = randomBytes(16);
  bytes.writeUIntBE(now, 0, 6);
  bytes[6] = (bytes[6] & 0x0f) | 0x70;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The issue time inside a token id, or undefined when it is not one of ours. */
export function issuedAtMs(tokenId: string): number | undefined {
  if (!UUID_V7.test(tokenId)) return undefined;
  return Buffer.from(tokenId.replace(/-/g, '').slice(0, 12), 'hex').readUIntBE(0, 6);
}
