/** C0 controls (NUL included), DEL and C1 controls: never meaningful in this API's text, and NUL breaks PostgreSQL. */
// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * Every string inside a parsed body, query or parameter that contains a control character,
 * named by its path (`note`, `items[2].name`), so any endpoint refuses them without its own rule.
 */
export function findControlCharacters(value: unknown, path = ''): string[] {
  if (typeof value === 'string') return CONTROL_CHARACTER.test(value) ? [path || 'value'] : [];
  if (Array.isArray(value)) return value.flatMap((item, index) => findControlCharacters(item, `${path}[${index}]`));
  if (isPlainObject(value)) {
    return Object.entries(value).flatMap(([key, item]) => findControlCharacters(item, path ? `${path}.${key}` : key));
  }
  return [];
}

/**
 * JSON objects and parsed query strings (whose prototype has no constructor); class instances,
 * such as parsed numbers or money, are not text.
 */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const prototype = Object.getPrototypeOf(value) as { constructor?: unknown } | null;
  return prototype === null || prototype === Object.prototype || typeof prototype.constructor !== 'function';
}
