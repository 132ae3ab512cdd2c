import { invalidRequest } from '../errors/api-error';

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

/** No request of this API nests deeper; far deeper bodies overflowed the validators' recursion (a 500). */
export const MAX_JSON_DEPTH = 64;

export function parseJsonPreservingNumbers(text: string): unknown {
  if (nestingDepth(text) > MAX_JSON_DEPTH) {
    throw invalidRequest(`The request body nests objects and arrays deeper than ${MAX_JSON_DEPTH} levels`);
  }
  if (!MAY_HOLD_A_NUMBER.test(text)) return JSON.parse(text);
  return JSON.parse(text, (_key, value, context) =>
    typeof value === 'number' ? new JsonNumberText(context.source ?? String(value)) : value,
  );
}

/** The deepest nesting of objects and arrays in JSON text, brackets inside strings not counted. */
export function nestingDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const char = text.charCodeAt(i);
    if (inString) {
      if (char === 0x5c)
        i++; // a backslash escapes the next character
      else if (char === 0x22) inString = false;
    } else if (char === 0x22) inString = true;
    else if (char === 0x7b || char === 0x5b) deepest = Math.max(deepest, ++depth);
    else if (char === 0x7d || char === 0x5d) depth--;
  }
  return deepest;
}
