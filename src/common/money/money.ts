import Big from 'big.js';

/**
 * Money is a base-10 decimal with precision 19 and scale 4 (PostgreSQL numeric(19,4)),
 * rounded HALF_EVEN. It never passes through a JavaScript number.
 */
export const Money = Big();
Money.RM = Big.roundHalfEven;
Money.DP = 4;
// Keep toString() in plain notation for every value numeric(19,4) can hold.
Money.PE = 40;
Money.NE = -40;

export const MONEY_SCALE = 4;
const MAX_INTEGER_DIGITS = 15; // numeric(19,4): 19 digits, 4 after the point
export const MAX_STORABLE = new Money('999999999999999.9999');

// Plain decimals, optional sign and exponent; source text of a JSON number or a numeric string.
const DECIMAL_PATTERN = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const MAX_SOURCE_LENGTH = 64;

export class MoneyFormatError extends Error {}

/** Parses a decimal from its exact text, rounding to 4 places HALF_EVEN. */
export function parseMoney(text: string): Big {
  const trimmed = text.trim();
  if (trimmed.length === 0 || trimmed.length > MAX_SOURCE_LENGTH || !DECIMAL_PATTERN.test(trimmed)) {
    throw new MoneyFormatError('must be a decimal number');
  }
  const exponent = /[eE]([+-]?\d+)$/.exec(trimmed);
  if (exponent && Math.abs(Number(exponent[1])) > MAX_INTEGER_DIGITS + MONEY_SCALE) {
    throw new MoneyFormatError('has an exponent beyond the supported precision');
  }
  // big.js accepts a leading '-' but not '+'.
  const value = new Money(trimmed.replace(/^\+/, '')).round(MONEY_SCALE, Big.roundHalfEven);
  if (value.abs().gt(MAX_STORABLE)) {
    throw new MoneyFormatError('exceeds the supported precision (19 digits, 4 decimals)');
  }
  // "-0" or "-0.00001" would pass a ">= 0" rule as zero: a negative sign is refused outright.
  if (value.eq(0) && trimmed.startsWith('-')) throw new MoneyFormatError('must not be negative');
  return value;
}

/** Exactly four decimals: "150.0000". */
export function formatMoney(value: Big): string {
  return value.toFixed(MONEY_SCALE, Big.roundHalfEven);
}

/** A JSON number with exactly four decimals, written from the decimal text, never via a float. */
export function moneyJson(value: Big | string): RawJson {
  const decimal = typeof value === 'string' ? new Money(value) : value;
  return JSON.rawJSON(formatMoney(decimal));
}
