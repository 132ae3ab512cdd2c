/** The Idempotency-Key example that "Try it out" fills in; the interceptor swaps it for a fresh key. */
export const IDEMPOTENCY_KEY_PLACEHOLDER = 'fresh-key-per-try';

interface UiRequest {
  headers: Record<string, string>;
}

/**
 * Swagger UI's requestInterceptor: an empty or placeholder Idempotency-Key becomes a new random UUID,
 * so each "Try it out" is a new transfer, while a key typed by hand is sent as is (and replays).
 * It runs in the browser from its source text: it must not refer to anything outside its own body,
 * hence the placeholder written out again, and getRandomValues (crypto.randomUUID needs HTTPS).
 */
export function freshIdempotencyKeys(request: UiRequest): UiRequest {
  for (const name of Object.keys(request.headers)) {
    const value = request.headers[name];
    if (name.toLowerCase() !== 'idempotency-key' || (value !== '' && value !== 'fresh-key-per-try')) continue;
    const bytes = crypto.getRandomValues(new Uint8Array(16));
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    const hex = Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
    request.headers[name] =
      `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  }
  return request;
}
