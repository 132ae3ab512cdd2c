import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import { gatedHash } from './hash-gate';

const scryptAsync = promisify(scrypt) as (
  password: string,
  salt: Buffer,
  keylen: number,
  options: { N: number; r: number; p: number; maxmem: number },
) => Promise<Buffer>;

/** UPI apps use 4- or 6-digit PINs. */
export const PIN_PATTERN = /^(\d{4}|\d{6})$/;
export const PIN_MESSAGE = 'pin must be a string of exactly 4 or 6 digits';

// OWASP's scrypt minimum (N=2^17, r=8, p=1) costs ~128 MiB per hash; 2^15 keeps a login
// burst on a small node affordable, and the lockout bounds online guessing anyway.
const COST = { N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };
const KEY_LENGTH = 32;
const PREFIX = 'scrypt';

/** `scrypt$N$r$p$salt$hash` (base64url), so the cost can be raised later without breaking old hashes. */
export async function hashPin(pin: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await gatedHash(() => scryptAsync(pin, salt, KEY_LENGTH, COST));
  return [PREFIX, COST.N, COST.r, COST.p, salt.toString('base64url'), hash.toString('base64url')].join('$');
}

export async function verifyPin(pin: string, stored: string): Promise<boolean> {
  const [prefix, n, r, p, salt, expected] = stored.split('$');
  if (prefix !== PREFIX || !salt || !expected) return false;
  const cost = { N: Number(n), r: Number(r), p: Number(p), maxmem: COST.maxmem };
  const want = Buffer.from(expected, 'base64url');
  const got = await gatedHash(() => scryptAsync(pin, Buffer.from(salt, 'base64url'), want.length, cost));
  return timingSafeEqual(got, want);
}
