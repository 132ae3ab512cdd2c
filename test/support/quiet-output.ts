import { format } from 'node:util';

/**
 * Green output is the test list and nothing else (docs/testing.md). In every test file: a test that
 * writes to the console, or makes the process raise a warning (pg's DeprecationWarning, a
 * MaxListenersExceededWarning...), fails, and says what was written. What it wrote still goes
 * through, so nothing is hidden. What child processes and the global setup print is not seen
 * here: .ci/run checks the whole output of `npm test` for that.
 */
const CONSOLE_METHODS = ['log', 'info', 'warn', 'error', 'debug', 'trace', 'dir', 'table'] as const;
const unexpected: string[] = [];

for (const method of CONSOLE_METHODS) {
  const original = console[method].bind(console) as (...args: unknown[]) => void;
  console[method] = (...args: unknown[]) => {
    unexpected.push(`console.${method}: ${format(...args)}`);
    original(...args);
  };
}

/** Filled by quiet-environment.ts. */
const warnings = (globalThis as { processWarnings?: string[] }).processWarnings ?? [];

function failOnUnexpectedOutput(): void {
  const lines = [...unexpected.splice(0), ...warnings.splice(0)];
  if (lines.length === 0) return;
  throw new Error(`Unexpected output (green runs print nothing; assert on what matters instead):\n${lines.join('\n')}`);
}

afterEach(failOnUnexpectedOutput);
afterAll(failOnUnexpectedOutput);
