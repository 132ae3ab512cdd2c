import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { promisify } from 'node:util';

/**
 * The convention for shell examples in README.md and docs/*.md (docs/testing.md says it for
 * writers):
 * - every ```bash block that calls `curl` is run, in document order, against a fresh instance,
 *   unless the last non-blank line before its fence is `<!-- example: skip -->`; blocks without curl
 *   (installing, starting, deploying) are never run, and should carry the marker all the same;
 * - a block is self-contained: it sets every variable it uses, and `localhost:8080` is where the
 *   service is (the test points it at its own instance);
 * - every curl call the block makes is followed by one `# => STATUS [field | field=value ...]` line,
 *   in call order: the answer must have that status and, for JSON, those top-level or dotted
 *   fields (`content.0.amount`), with that value where one is given.
 */
export const SKIP_MARKER = '<!-- example: skip -->';

export interface Expectation {
  status: number;
  fields: { path: string; value?: string }[];
  text: string;
}

export interface Example {
  file: string;
  line: number;
  code: string;
  expectations: Expectation[];
}

const FENCE = /^```bash\s*$/;
const EXPECTATION = /^\s*# => (\d{3})(.*)$/;

/** The runnable bash blocks of one Markdown file, in order. */
export function examplesIn(path: string, root: string): Example[] {
  const lines = readFileSync(path, 'utf8').split('\n');
  const examples: Example[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!FENCE.test(lines[i])) continue;
    const end = lines.findIndex((line, j) => j > i && line.startsWith('```'));
    const code = lines.slice(i + 1, end).join('\n');
    let before = i - 1;
    while (before >= 0 && lines[before].trim() === '') before--;
    if (lines[before]?.trim() !== SKIP_MARKER && /\bcurl\b/.test(code)) {
      examples.push({ file: relative(root, path), line: i + 1, code, expectations: expectationsIn(code) });
    }
    i = end;
  }
  return examples;
}

export function expectationsIn(code: string): Expectation[] {
  return code.split('\n').flatMap((line) => {
    const match = EXPECTATION.exec(line);
    if (!match) return [];
    const fields = match[2]
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map((field) => {
        const at = field.indexOf('=');
        return at < 0 ? { path: field } : { path: field.slice(0, at), value: field.slice(at + 1) };
      });
    return [{ status: Number(match[1]), fields, text: line.trim() }];
  });
}

/** README.md and every Markdown file under docs/. */
export function documentedExamples(root: string): Example[] {
  const docs = readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => join(root, 'docs', name));
  return [join(root, 'README.md'), ...docs].flatMap((path) => examplesIn(path, root));
}

export interface Call {
  status: number;
  contentType: string;
  body: string;
}

// Every curl of the example goes through this function (also inside $(...) and pipes, hence the
// counter file): the body goes on to the example as usual, status and body are kept for the check.
const PRELUDE = `set -euo pipefail
curl() {
  local n=$(( $(cat "$EXAMPLE_OUT/count") + 1 ))
  echo "$n" > "$EXAMPLE_OUT/count"
  command curl "$@" --silent --show-error --output "$EXAMPLE_OUT/$n.body" \\
    --write-out '%{http_code} %{content_type}' > "$EXAMPLE_OUT/$n.status"
  cat "$EXAMPLE_OUT/$n.body"
}
`;

/** Runs one example's code with bash against `baseUrl`; returns every call it made, in order. */
export async function runExample(code: string, baseUrl: string): Promise<{ calls: Call[]; output: string }> {
  const out = mkdtempSync(join(tmpdir(), 'payments-doc-example-'));
  try {
    writeFileSync(join(out, 'count'), '0');
    const script = PRELUDE + code.replaceAll('http://localhost:8080', baseUrl).replaceAll('localhost:8080', baseUrl);
    let output = '';
    try {
      const result = await promisify(execFile)('bash', ['-c', script], {
        env: { ...process.env, EXAMPLE_OUT: out, PATH: `${dirname(process.execPath)}:${process.env.PATH}` },
        timeout: 60_000,
      });
      output = result.stdout + result.stderr;
    } catch (error) {
      const failed = error as { stdout?: string; stderr?: string; message: string };
      throw new Error(`the example failed: ${failed.message}\n${failed.stdout ?? ''}${failed.stderr ?? ''}`, {
        cause: error,
      });
    }
    const count = Number(readFileSync(join(out, 'count'), 'utf8'));
    const calls = Array.from({ length: count }, (_, i) => {
      const [status, contentType = ''] = readFileSync(join(out, `${i + 1}.status`), 'utf8').split(' ');
      return { status: Number(status), contentType, body: readFileSync(join(out, `${i + 1}.body`), 'utf8') };
    });
    return { calls, output };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

function valueAt(body: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((value, key) => (value as Record<string, unknown> | null)?.[key], body);
}

/** What differs between the calls made and the calls documented; empty when the example tells the truth. */
export function mismatches(calls: Call[], expectations: Expectation[]): string[] {
  const problems: string[] = [];
  if (calls.length !== expectations.length) {
    problems.push(`${calls.length} curl calls made, ${expectations.length} "# => STATUS" lines documented`);
  }
  calls.slice(0, expectations.length).forEach((call, i) => {
    const expected = expectations[i];
    if (call.status !== expected.status) {
      problems.push(`call ${i + 1}: status ${call.status}, documented "${expected.text}"; body: ${call.body}`);
      return;
    }
    if (expected.fields.length === 0) return;
    let body: unknown;
    try {
      body = JSON.parse(call.body);
    } catch {
      problems.push(`call ${i + 1}: "${expected.text}" names fields, but the answer is not JSON: ${call.body}`);
      return;
    }
    for (const { path, value } of expected.fields) {
      const actual = valueAt(body, path);
      if (actual === undefined) problems.push(`call ${i + 1}: no field ${path} in ${call.body}`);
      else if (value !== undefined && String(actual) !== value)
        problems.push(`call ${i + 1}: ${path} is ${JSON.stringify(actual)}, documented ${value}`);
    }
  });
  return problems;
}
