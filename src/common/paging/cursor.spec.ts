import { ApiError } from '../errors/api-error';
import { decodeCursor, encodeCursor } from './cursor';

describe('cursor', () => {
  it('round-trips a position as an opaque URL-safe string', () => {
    const cursor = encodeCursor({ sortBy: 'createdAt', id: '9223372036854775807' });
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(cursor)).toEqual({ sortBy: 'createdAt', id: '9223372036854775807' });
  });

  it.each([
    ['not base64url', 'a+b/c='],
    ['not JSON', Buffer.from('{nope').toString('base64url')],
    ['another version', Buffer.from('{"v":2,"s":"createdAt","k":"1"}').toString('base64url')],
    ['an id that is not a bigint', Buffer.from('{"v":1,"s":"createdAt","k":"1e3"}').toString('base64url')],
    ['an id beyond bigint', Buffer.from('{"v":1,"s":"createdAt","k":"9223372036854775808"}').toString('base64url')],
    ['null', Buffer.from('null').toString('base64url')],
    ['too long', 'a'.repeat(201)],
  ])('refuses %s with a 400 error', (_name, text) => {
    expect(() => decodeCursor(text)).toThrow(ApiError);
    try {
      decodeCursor(text);
    } catch (error) {
      expect((error as ApiError).code).toBe('invalid-request');
    }
  });
});
