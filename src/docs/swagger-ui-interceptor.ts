/** The Idempotency-Key example that "Try it out" fills in; the interceptor swaps it for a fresh key. */
export const IDEMPOTENCY_KEY_PLACEHOLDER = 'fresh-key-per-try';

interface UiRequest {
  headers: Record<string, string>;
}

/**
 * Swagger UI's requestInterceptor: an empty or placeholder Idempotency-Key becomes a new random UUID,
 * so each "Try it out" is a new transfer, while a key typed by hand is sent as is (and replays).
 * It runs in the browser from its source text: it must not refer to anything outside its own body,
 * hence the placeholder written out again, and getRandomValues (crypto.randomUUID needs HTTPS).
 */
export function freshIdempotencyKeys(request: UiRequest): UiRequest {
  for (const name of Object.keys(request.headers)) {
    const value = request.headers[name];
    if (name.toLowerCase() !== 'idempotency-key' || (value !== '' && value !== 'fresh-key-per-try')) continue;
    const bytes = crypto.getRandomValues(new Uint8Array(16));
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    const hex = Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
    request.headers[name] =
      `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  }
  return request;
}

interface ResponseBodyProps {
  content?: unknown;
  contentType?: string;
  getComponent(name: string, container?: boolean): unknown;
}

interface SwaggerUiSystem {
  React: { createElement(type: unknown, props?: object | null, ...children: unknown[]): unknown };
}

/**
 * Swagger UI plugin: a JSON response body is shown as the service sent it, only indented.
 * Swagger UI's own response body re-serialises what JSON.parse made of it, which turns every
 * amount into a double: 12345678896234.5679 shows as 12345678896234.568 and 1.5000 as 1.5.
 * Re-indenting the text instead keeps each number exactly as written. Like freshIdempotencyKeys
 * it runs in the browser from its source text, so everything it needs is inside its body.
 */
export function rawJsonResponseBodies(system: SwaggerUiSystem) {
  const whitespace = ' \t\n\r';
  const indent = (depth: number) => `\n${'  '.repeat(depth)}`;
  const afterString = (text: string, quote: number) => {
    let end = quote + 1;
    while (text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
    return end + 1;
  };
  const nextToken = (text: string, from: number) => {
    while (whitespace.includes(text[from])) from += 1;
    return from;
  };

  /** JSON.stringify(JSON.parse(text), null, 2), but with every number's text kept. Valid JSON only. */
  function indentJsonText(text: string): string {
    let out = '';
    let depth = 0;
    for (let at = nextToken(text, 0); at < text.length; at = nextToken(text, at)) {
      const char = text[at];
      if (char === '"') {
        const end = afterString(text, at);
        out += text.slice(at, end);
        at = end;
        continue;
      }
      at += 1;
      if (char === '{' || char === '[') {
        const next = nextToken(text, at);
        if (text[next] === '}' || text[next] === ']') {
          out += char + text[next];
          at = next + 1;
        } else {
          depth += 1;
          out += char + indent(depth);
        }
      } else if (char === '}' || char === ']') {
        depth -= 1;
        out += indent(depth) + char;
      } else if (char === ',') out += `,${indent(depth)}`;
      else if (char === ':') out += ': ';
      else out += char;
    }
    return out;
  }

  const isJson = (text: string) => {
    try {
      JSON.parse(text);
      return true;
    } catch {
      return false;
    }
  };

  const React = system.React;
  return {
    fn: { indentJsonText },
    wrapComponents: {
      responseBody: (Original: unknown) => (props: ResponseBodyProps) => {
        const { content, contentType = '' } = props;
        if (typeof content !== 'string' || !/json/i.test(contentType) || !isJson(content)) {
          return React.createElement(Original, props);
        }
        const highlighted = {
          language: 'json',
          downloadable: true,
          canCopy: true,
          fileName: `response_${Date.now()}.json`,
        };
        return React.createElement(
          'div',
          null,
          React.createElement('h5', null, 'Response body'),
          React.createElement(props.getComponent('HighlightCode', true), highlighted, indentJsonText(content)),
        );
      },
    },
  };
}

interface SwaggerUiPage {
  SwaggerUIBundle: { plugins: { DownloadUrl(system: unknown): unknown } };
}

/** Swagger UI's DownloadUrl plugin, which the page's default plugin list holds and setting `plugins` replaces. */
export function downloadUrlPlugin(system: unknown): unknown {
  return (globalThis as unknown as SwaggerUiPage).SwaggerUIBundle.plugins.DownloadUrl(system);
}
