import Big from 'big.js';

/**
 * RFC 3986 percent-encoding of a query value: everything but the unreserved characters and "@"
 * (allowed in a query, and what every UPI ID carries, as NPCI's own examples write it). A space is
 * %20, never "+", which UPI apps would show as a plus.
 */
export function encodeUpiValue(value: string): string {
  return encodeURIComponent(value)
    .replace(/[!'()*]/g, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%40/g, '@');
}

/** upi://pay in the NPCI linking format: pa, pn, am (2 decimals, absent when open), cu, tn (absent without a note), tr. */
export function upiPayUri(request: {
  payeeUpiId: string;
  payeeName: string;
  amount: string | null;
  note: string | null;
  referenceId: string;
}): string {
  const fields: [string, string | null][] = [
    ['pa', request.payeeUpiId],
    ['pn', request.payeeName],
    ['am', request.amount === null ? null : new Big(request.amount).toFixed(2)],
    ['cu', 'INR'],
    ['tn', request.note === null || request.note === '' ? null : request.note],
    ['tr', request.referenceId],
  ];
  const query = fields
    .filter((field): field is [string, string] => field[1] !== null)
    .map(([name, value]) => `${name}=${encodeUpiValue(value)}`)
    .join('&');
  return `upi://pay?${query}`;
}
