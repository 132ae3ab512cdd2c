/**
 * JSON numbers in request bodies keep their source text so an amount like
 * 1234567890123.4567 is never rounded through a float; DTOs turn it into money.
 */
export class JsonNumberText {
  constructor(readonly source: string) {}

  toString(): string {
    return this.source;
  }
}

/**
 * Where a JSON number can start: a value position (the start, or after ":", "[" or ",", then
 * whitespace) holding "-" or a digit. Text without one has no number, so the reviver, which makes
 * JSON.parse several times slower, is skipped. A match inside a string only costs the slow path.
 */
const MAY_HOLD_A_NUMBER = /(?:^|[:,[])\s*[-\d]/;

export function parseJsonPreservingNumbers(text: string): unknown {
  if (!MAY_HOLD_A_NUMBER.test(text)) return JSON.parse(text);
  return JSON.parse(text, (_key, value, context) =>
    typeof value === 'number' ? new JsonNumberText(context.source ?? String(value)) : value,
  );
}
