import { createHmac } from 'node:crypto';

export const TEST_JWT_SECRET = 'test-secret-that-is-at-least-32-bytes-long!';

function base64url(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

/** Builds a JWT by hand, so tests can forge the tokens a real attacker would send. */
export function craftToken(
  claims: Record<string, unknown>,
  options: { secret?: string; header?: Record<string, unknown>; unsigned?: boolean } = {},
): string {
  const header = options.header ?? { alg: 'HS256', typ: 'JWT' };
  const signingInput = `${base64url(header)}.${base64url(claims)}`;
  if (options.unsigned) return `${signingInput}.`;
  const signature = createHmac('sha256', options.secret ?? TEST_JWT_SECRET)
    .update(signingInput)
    .digest('base64url');
  return `${signingInput}.${signature}`;
}

export function decodeClaims(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8'));
}

export function decodeHeader(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[0], 'base64url').toString('utf8'));
}

export const nowSeconds = (): number => Math.floor(Date.now() / 1000);
