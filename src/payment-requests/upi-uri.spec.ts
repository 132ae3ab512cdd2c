import { encodeUpiValue, upiPayUri } from './upi-uri';

describe('upi://pay URIs', () => {
  it('percent-encodes everything but the RFC 3986 unreserved characters and @', () => {
    expect(encodeUpiValue("a b&c=d+e/f?g#h%i!j'k(l)m*n~o-p_q.r@s")).toBe(
      'a%20b%26c%3Dd%2Be%2Ff%3Fg%23h%25i%21j%27k%28l%29m%2An~o-p_q.r@s',
    );
    expect(encodeUpiValue('₹ é')).toBe('%E2%82%B9%20%C3%A9');
  });

  it('writes am with 2 decimals and leaves out am and tn when they are absent', () => {
    const base = { payeeUpiId: 'bob@okbank', payeeName: 'Bob', referenceId: 'r-1' };
    expect(upiPayUri({ ...base, amount: '7.5000', note: 'x' })).toBe(
      'upi://pay?pa=bob@okbank&pn=Bob&am=7.50&cu=INR&tn=x&tr=r-1',
    );
    expect(upiPayUri({ ...base, amount: null, note: null })).toBe('upi://pay?pa=bob@okbank&pn=Bob&cu=INR&tr=r-1');
  });
});
