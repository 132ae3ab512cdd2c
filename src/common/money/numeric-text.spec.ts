import { formatMoney, Money, moneyJson } from './money';
import { numericColumnJson, numericColumnText } from './numeric-text';

describe('numericColumnJson', () => {
  it.each(['0.0000', '150.0000', '-42.5000', '999999999999999.9999', '0.1', '12', '1.23456'])(
    'writes %s as moneyJson and formatMoney do',
    (text) => {
      expect(JSON.stringify({ v: numericColumnJson(text) })).toBe(JSON.stringify({ v: moneyJson(text) }));
      expect(numericColumnText(text)).toBe(formatMoney(new Money(text)));
    },
  );
});
