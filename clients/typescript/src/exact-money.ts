/**
 * Money is exact in the service (numeric(19,4), read from the JSON source text); a JavaScript
 * number is not: 1234567890123.4567 becomes …4568. So this client never lets money pass through
 * a float: amounts go in as `string | number` (a string is sent as is, and the API accepts numeric
 * strings), and come back as the decimal text the service wrote (`"1234567890123.4567"`).
 */

/** The property names that carry money in the API's schemas. */
export const MONEY_FIELDS: ReadonlySet<string> = new Set([
  'amount',
  'balance',
  'balanceBefore',
  'balanceAfter',
  'openingBalance',
  'closingBalance',
  'reversedAmount',
  'globalSum',
  'ledgerBalance',
  'sum',
]);

type MoneyField =
  | 'amount'
  | 'balance'
  | 'balanceBefore'
  | 'balanceAfter'
  | 'openingBalance'
  | 'closingBalance'
  | 'reversedAmount'
  | 'globalSum'
  | 'ledgerBalance'
  | 'sum';

/** A decimal amount as the service wrote it, e.g. "1234567890123.4567". */
export type Decimal = string;

type Replace<T, With> = T extends number ? With : T;

/** `T` with every money number replaced, at any depth. */
type WithMoney<T, With> = T extends object
  ? { [K in keyof T]: K extends MoneyField ? Replace<T[K], With> : WithMoney<T[K], With> }
  : T;

/** What a request may carry: money as a number or, exactly, as a decimal string. */
export type MoneyIn<T> = WithMoney<T, number | Decimal>;
/** What an answer carries: money as decimal strings. */
export type MoneyOut<T> = WithMoney<T, Decimal>;

interface JsonSourceContext {
  source?: string;
}

/**
 * JSON.parse, except that a number under a money key keeps its source text (JSON.parse source
 * text access: Node 21+, current browsers). Without it the client refuses rather than round.
 */
export function parseExactJson(text: string): unknown {
  return JSON.parse(text, function (this: unknown, key: string, value: unknown, context?: JsonSourceContext) {
    if (typeof value !== 'number' || !MONEY_FIELDS.has(key)) return value;
    if (context?.source === undefined) {
      throw new Error('This runtime lacks JSON.parse source text access (Node 21+): money cannot be read exactly');
    }
    return context.source;
  } as (this: unknown, key: string, value: unknown) => unknown);
}
