/** Just enough PromQL and exposition-format reading to check dashboards and rules against a scrape. */

export interface Matcher {
  label: string;
  op: '=' | '!=' | '=~' | '!~';
  value: string;
}

export interface Selector {
  metric: string;
  matchers: Matcher[];
  /** Labels of the `by (...)` clauses of the expression the selector appears in. */
  groupBy: string[];
}

export interface Sample {
  name: string;
  labels: Record<string, string>;
}

const KEYWORDS = new Set(['and', 'or', 'unless', 'bool', 'on', 'ignoring', 'group_left', 'group_right', 'offset']);
const GROUPING = /\b(?:by|without)\s*\(([^)]*)\)/g;
const RANGE = /\[[^\]]*\]/g;
const TOKEN = /([a-zA-Z_:][a-zA-Z0-9_:]*)\s*(\{[^}]*\})?(\s*\()?/g;
const MATCHER = /([a-zA-Z_][a-zA-Z0-9_]*)\s*(=~|!~|!=|=)\s*"((?:[^"\\]|\\.)*)"/g;

/** The metric selectors of one expression: identifiers that are neither functions nor keywords. */
export function selectorsOf(expression: string): Selector[] {
  const groupBy: string[] = [];
  const stripped = expression
    .replace(GROUPING, (_all, labels: string) => {
      groupBy.push(...labels.split(',').map((label) => label.trim()));
      return ' ';
    })
    .replace(RANGE, ' ');
  const selectors: Selector[] = [];
  for (const [, name, braces, call] of stripped.matchAll(TOKEN)) {
    if (call || KEYWORDS.has(name) || /^\d/.test(name)) continue;
    const matchers = [...(braces ?? '').matchAll(MATCHER)].map(([, label, op, value]) => ({
      label,
      op: op as Matcher['op'],
      value,
    }));
    selectors.push({ metric: name, matchers, groupBy: groupBy.filter((label) => label !== '') });
  }
  return selectors;
}

/** Every sample line of a Prometheus text exposition, with its labels. */
export function parseExposition(text: string): Sample[] {
  return text
    .split('\n')
    .filter((line) => line.length > 0 && !line.startsWith('#'))
    .map((line) => {
      const name = /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(line)![0];
      const braces = line.startsWith('{', name.length) ? line.slice(name.length, line.lastIndexOf('}') + 1) : '';
      const labels: Record<string, string> = {};
      for (const [, label, , value] of braces.matchAll(MATCHER)) labels[label] = value;
      return { name, labels };
    });
}

export function matches(sample: Sample, matcher: Matcher): boolean {
  const value = sample.labels[matcher.label] ?? '';
  switch (matcher.op) {
    case '=':
      return value === matcher.value;
    case '!=':
      return value !== matcher.value;
    case '=~':
      return new RegExp(`^(?:${matcher.value})$`).test(value);
    case '!~':
      return !new RegExp(`^(?:${matcher.value})$`).test(value);
  }
}
