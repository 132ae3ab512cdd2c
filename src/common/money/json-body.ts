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

export function parseJsonPreservingNumbers(text: string): unknown {
  return JSON.parse(text, (_key, value, context) =>
    typeof value === 'number' ? new JsonNumberText(context.source ?? String(value)) : value,
  );
}
