import { freshIdempotencyKeys, IDEMPOTENCY_KEY_PLACEHOLDER, rawJsonResponseBodies } from './swagger-ui-interceptor';

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

describe('rawJsonResponseBodies (Swagger UI plugin)', () => {
  const standalone = new Function(`return ${rawJsonResponseBodies.toString()}`)() as typeof rawJsonResponseBodies;
  const { indentJsonText } = standalone({ React: { createElement: () => null } }).fn;

  it.each([
    '{"a":1,"b":[1,2,{"c":null}],"d":{},"e":[],"f":true,"g":-1.25}',
    ' { "nested" : [ [ ], { "x" : [ { } ] } ] , "s" : "quote \\" comma , colon : brace { [" } ',
    '[]',
    '"just a string"',
    '{"escaped":"\\\\","unicode":"é ₹","last":0}',
  ])('indents %s exactly as JSON.stringify(JSON.parse(text), null, 2)', (text) => {
    expect(indentJsonText(text)).toBe(JSON.stringify(JSON.parse(text), null, 2));
  });

  it('keeps every number and string as written, where JSON.parse would round, drop zeros or unescape', () => {
    const sent = '{"balance":12345678896234.5679,"amount":1.5000,"ids":[9007199254740993,-1.25e-3],"s":"\\u00e9"}';
    expect(indentJsonText(sent)).toBe(
      '{\n  "balance": 12345678896234.5679,\n  "amount": 1.5000,\n' +
        '  "ids": [\n    9007199254740993,\n    -1.25e-3\n  ],\n  "s": "\\u00e9"\n}',
    );
  });
});
