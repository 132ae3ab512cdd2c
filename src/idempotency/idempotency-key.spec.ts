import { createHash } from 'node:crypto';
import { requestHash } from './idempotency-key';

describe('requestHash', () => {
  it('is the SHA-256 hex of the canonical form stored with every key (unchanged across releases)', () => {
    const canonical = { senderUpiId: 'alice@okbank', receiverUpiId: 'bob@okbank', amount: '12.3400', note: null };
    const text = '[["amount","12.3400"],["note",null],["receiverUpiId","bob@okbank"],["senderUpiId","alice@okbank"]]';
    expect(requestHash(canonical)).toBe(createHash('sha256').update(text).digest('hex'));
    expect(
      requestHash({ note: null, amount: '12.3400', receiverUpiId: 'bob@okbank', senderUpiId: 'alice@okbank' }),
    ).toBe(requestHash(canonical));
  });
});
