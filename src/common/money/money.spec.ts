import { formatMoney, Money, MoneyFormatError, moneyJson, parseMoney } from './money';

describe('money', () => {
  describe('parseMoney rounds to 4 places with HALF_EVEN', () => {
    it.each([
      ['0.00005', '0.0000'],
      ['0.00015', '0.0002'],
      ['0.00025', '0.0002'],
      ['1.23445', '1.2344'],
      ['1.23455', '1.2346'],
      ['1.234451', '1.2345'],
      ['-2.00005', '-2.0000'],
      ['99.99995', '100.0000'],
    ])('%s -> %s', (input, expected) => {
      expect(formatMoney(parseMoney(input))).toBe(expected);
    });
  });

  it('keeps 19-digit values exact', () => {
    for (const text of ['999999999999999.9999', '123456789012345.6789', '100000000000000.0001']) {
      expect(formatMoney(parseMoney(text))).toBe(text);
    }
    // The same digits through a float would have lost the last places.
    expect(String(Number('123456789012345.6789'))).not.toBe('123456789012345.6789');
  });

  it('reads numeric strings with signs, exponents and surrounding spaces', () => {
    expect(formatMoney(parseMoney(' 150 '))).toBe('150.0000');
    expect(formatMoney(parseMoney('+1.5'))).toBe('1.5000');
    expect(formatMoney(parseMoney('1.5e2'))).toBe('150.0000');
    expect(formatMoney(parseMoney('.5'))).toBe('0.5000');
  });

  it.each([
    ['', 'must be a decimal number'],
    ['abc', 'must be a decimal number'],
    ['NaN', 'must be a decimal number'],
    ['Infinity', 'must be a decimal number'],
    ['0x10', 'must be a decimal number'],
    ['1,5', 'must be a decimal number'],
    ['1e400', 'exponent'],
    ['1000000000000000', 'precision'],
    ['-0', 'negative'],
    ['-0.00001', 'negative'],
  ])('refuses %j', (input, reason) => {
    expect(() => parseMoney(input)).toThrow(MoneyFormatError);
    expect(() => parseMoney(input)).toThrow(reason);
  });

  it('writes JSON numbers with exactly four decimals, never through a float', () => {
    const json = JSON.stringify({ a: moneyJson('150'), b: moneyJson(new Money('123456789012345.6789')) });
    expect(json).toBe('{"a":150.0000,"b":123456789012345.6789}');
  });
});
