import { createHmac, createSecretKey, type KeyObject } from 'node:crypto';

const SECRET_PREFIX = 'whsec_';
/**
 * Secrets seen recently, as key objects: an endpoint's key is decoded and imported once, not once
 * per delivery (createHmac with a raw Buffer imports it every time, most of an HMAC's cost).
 */
const keys = new Map<string, KeyObject>();
const MAX_CACHED_KEYS = 1000;

/**
 * The Standard Webhooks `webhook-signature` value: `v1,` + base64 HMAC-SHA256 of
 * `<id>.<timestamp>.<body>`, keyed by the secret's base64-decoded bytes. The same value as the
 * `standardwebhooks` package's Webhook.sign (webhook-signature.spec.ts checks both ways), with
 * node:crypto's native HMAC instead of the package's JavaScript SHA-256.
 */
export function signWebhook(secret: string, id: string, timestampSeconds: number, body: string): string {
  return 'v1,' + createHmac('sha256', keyOf(secret)).update(`${id}.${timestampSeconds}.`).update(body).digest('base64');
}

function keyOf(secret: string): KeyObject {
  let key = keys.get(secret);
  if (!key) {
    if (keys.size >= MAX_CACHED_KEYS) keys.clear();
    key = createSecretKey(
      Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64'),
    );
    keys.set(secret, key);
  }
  return key;
}
