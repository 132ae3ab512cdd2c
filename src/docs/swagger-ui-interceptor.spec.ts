import { freshIdempotencyKeys, IDEMPOTENCY_KEY_PLACEHOLDER } from './swagger-ui-interceptor';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('freshIdempotencyKeys (Swagger UI requestInterceptor)', () => {
  // Swagger UI receives the function as source text: rebuild it the same way, with no closure.
  const standalone = new Function(`return ${freshIdempotencyKeys.toString()}`)() as typeof freshIdempotencyKeys;

  it.each([IDEMPOTENCY_KEY_PLACEHOLDER, ''])('replaces the key %j with a new UUID on every call', (key) => {
    const first = standalone({ headers: { 'Idempotency-Key': key, Accept: 'application/json' } });
    const second = standalone({ headers: { 'idempotency-key': key } });
    expect(first.headers['Idempotency-Key']).toMatch(UUID_V4);
    expect(second.headers['idempotency-key']).toMatch(UUID_V4);
    expect(first.headers['Idempotency-Key']).not.toBe(second.headers['idempotency-key']);
    expect(first.headers.Accept).toBe('application/json');
  });

  it('keeps a key typed by hand, so a second try replays', () => {
    expect(standalone({ headers: { 'Idempotency-Key': 'my-key-1' } }).headers['Idempotency-Key']).toBe('my-key-1');
  });
});
