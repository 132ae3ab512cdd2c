import { randomBytes } from 'node:crypto';

const SECRET_PREFIX = 'whsec_';
/** 32 random bytes: the HMAC-SHA256 key the Standard Webhooks libraries decode from the secret. */
const SECRET_BYTES = 32;

/** A new signing secret in the Standard Webhooks format: `whsec_` + base64 of random bytes. */
export function newWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(SECRET_BYTES).toString('base64');
}
