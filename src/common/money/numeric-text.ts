import { formatMoney, Money, moneyJson } from './money';

// What PostgreSQL writes for a numeric(19,4) column: the scale is fixed by the column, so the
// text already has exactly four decimals and needs no round trip through big.js.
const FOUR_DECIMALS = /^-?\d{1,15}\.\d{4}$/;

/** A JSON number from a numeric(19,4) column's text, the same bytes moneyJson writes. */
export function numericColumnJson(text: string): RawJson {
  return FOUR_DECIMALS.test(text) ? JSON.rawJSON(text) : moneyJson(text);
}

/** The text of a numeric(19,4) column with exactly four decimals, as formatMoney writes it. */
export function numericColumnText(text: string): string {
  return FOUR_DECIMALS.test(text) ? text : formatMoney(new Money(text));
}
