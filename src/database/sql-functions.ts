import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { DataSource } from 'typeorm';
import { findRepoRoot } from '../common/repo-root';

/**
 * Repeatable migrations (Flyway's idea) for database functions and triggers: each function has one
 * canonical file, src/<module>/sql/<name>.sql (the module whose tables it guards or whose rules it
 * holds), holding its CREATE OR REPLACE FUNCTION and, for a trigger function, the CREATE OR
 * REPLACE TRIGGER statements that run it. After the versioned migrations, every file whose
 * checksum differs from the one recorded in sql_functions is applied. No function or trigger is
 * defined anywhere else: a migration may create one it needs on the way (its SQL is history), but
 * the file is what the database ends up running. A change of a function's arguments or result
 * type still needs a versioned migration that drops the old one first (CREATE OR REPLACE cannot
 * change them); so does dropping a function or a trigger.
 */
interface SqlFunctionFile {
  name: string;
  path: string;
  sql: string;
  checksum: string;
}

/** What a file creates: its functions by name, its triggers as `table.trigger`. */
export interface SqlDefinitions {
  functions: string[];
  triggers: string[];
}

/** src/ in a checkout (the canonical files); dist/src/ where only the build was shipped. */
function sqlSourceRoot(): string {
  const source = join(findRepoRoot(), 'src');
  return existsSync(source) ? source : join(__dirname, '..');
}

export function readSqlFunctionFiles(root: string = sqlSourceRoot()): SqlFunctionFile[] {
  const files = readdirSync(root, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(root, entry.name, 'sql')))
    .flatMap((entry) =>
      readdirSync(join(root, entry.name, 'sql'))
        .filter((file) => file.endsWith('.sql'))
        .map((file) => join(root, entry.name, 'sql', file)),
    )
    .sort();
  if (files.length === 0) throw new Error(`No database function files (*/sql/*.sql) under ${root}`);
  const canonical = files.map((path) => functionFile(basename(path, '.sql'), path, readFileSync(path, 'utf8')));
  const all = [...canonical, ...movementEntryFiles(root, canonical)];
  refuseStrayDefinitions(all);
  return all;
}

/** Comments and dollar-quoted bodies left out: only the statements' own text. */
function statementsOf(sql: string): string {
  return sql.replace(/--.*$/gm, '').replace(/\$(\w*)\$[\s\S]*?\$\1\$/g, '');
}

export function sqlDefinitions(sql: string): SqlDefinitions {
  const code = statementsOf(sql);
  const functions = [...code.matchAll(/CREATE\s+(?:OR\s+REPLACE\s+)?FUNCTION\s+"?(\w+)"?/gi)].map((match) => match[1]);
  const triggers = [...code.matchAll(/CREATE\s+(?:OR\s+REPLACE\s+)?TRIGGER\s+"?(\w+)"?[^;]*?\sON\s+"?(\w+)"?/gi)].map(
    (match) => `${match[2]}.${match[1]}`,
  );
  return { functions, triggers };
}

/** Each file defines the function it is named after, and nothing is defined in two places. */
function refuseStrayDefinitions(files: SqlFunctionFile[]): void {
  const seen = new Map<string, string>();
  for (const file of files) {
    const { functions, triggers } = sqlDefinitions(file.sql);
    if (!functions.includes(file.name)) throw new Error(`${file.path} does not define the function ${file.name}`);
    for (const name of [...functions.map((fn) => `function ${fn}`), ...triggers.map((t) => `trigger ${t}`)]) {
      const other = seen.get(name);
      if (other !== undefined) throw new Error(`The ${name} is defined twice: in ${other} and in ${file.path}`);
      seen.set(name, file.path);
    }
  }
}

function functionFile(name: string, path: string, sql: string): SqlFunctionFile {
  return { name, path, sql, checksum: createHash('sha256').update(sql).digest('hex') };
}

/**
 * Each money movement's public function and the rules function it wraps. The public ones are not
 * files: they are generated from one template, so the claim/replay/finish glue exists once.
 */
export const MOVEMENT_ENTRIES: Readonly<Record<string, string>> = {
  transfer_funds: 'transfer_apply',
  reverse_transfer: 'reversal_apply',
  deposit_funds: 'deposit_apply',
  place_hold: 'hold_place_apply',
  capture_hold: 'hold_capture_apply',
  open_dispute: 'dispute_open_apply',
};

const MOVEMENT_ENTRY_TEMPLATE = join('movements', 'sql', 'movement_entry.sql.template');
/** The parameters every entry declares itself: the key's three first, the answer's context last. */
const ENTRY_OWN_PARAMETERS = new Set(['p_owner', 'p_idempotency_key', 'p_request_hash', 'p_context']);

/**
 * The template filled in for each entry: the rules function's parameters, as its canonical file
 * declares them, become the entry's (between the key and the context) and the call's arguments.
 * Static SQL per function, as if written by hand: nothing is composed per call.
 */
function movementEntryFiles(root: string, canonical: SqlFunctionFile[]): SqlFunctionFile[] {
  const path = join(root, MOVEMENT_ENTRY_TEMPLATE);
  const template = readFileSync(path, 'utf8');
  return Object.entries(MOVEMENT_ENTRIES).map(([name, rules]) => {
    const file = canonical.find((candidate) => candidate.name === rules);
    if (!file) throw new Error(`${name} wraps ${rules}, which has no file (*/sql/${rules}.sql) under ${root}`);
    const parameters = parametersOf(rules, file.sql);
    const own = parameters.filter((parameter) => !ENTRY_OWN_PARAMETERS.has(parameter.name));
    const fill: Record<string, string> = {
      name,
      rules,
      parameters: own
        .map((parameter) => `  ${parameter.name} ${parameter.type},\n`)
        .join('')
        .trimEnd(),
      arguments: parameters.map((parameter) => parameter.name).join(', '),
    };
    return functionFile(
      name,
      path,
      template.replace(/\{\{(\w+)\}\}/g, (_, key: string) => fill[key]),
    );
  });
}

/** `name type` of each parameter in CREATE FUNCTION fn(...), in order; commas inside a type's parentheses kept. */
function parametersOf(fn: string, sql: string): { name: string; type: string }[] {
  const code = sql.replace(/--.*$/gm, '');
  const start = code.search(new RegExp(`CREATE OR REPLACE FUNCTION ${fn}\\(`, 'i'));
  if (start < 0) throw new Error(`No CREATE OR REPLACE FUNCTION ${fn}( in its file`);
  const parts: string[] = [''];
  let depth = 0;
  for (const char of code.slice(code.indexOf('(', start) + 1)) {
    if (char === ')' && depth === 0) break;
    if (char === '(') depth++;
    if (char === ')') depth--;
    if (char === ',' && depth === 0) parts.push('');
    else parts[parts.length - 1] += char;
  }
  return parts.map((part) => {
    const [name, ...type] = part.trim().split(/\s+/);
    return { name, type: type.join(' ') };
  });
}

/** Applies the changed function files, each with its checksum in one transaction; returns their names. */
export async function applySqlFunctions(dataSource: DataSource, files = readSqlFunctionFiles()): Promise<string[]> {
  const rows = (await dataSource.query('SELECT name, checksum FROM sql_functions')) as {
    name: string;
    checksum: string;
  }[];
  const recorded = new Map(rows.map((row) => [row.name, row.checksum]));
  const changed = files.filter((file) => recorded.get(file.name) !== file.checksum);
  for (const file of changed) {
    await dataSource.transaction(async (manager) => {
      // Files are applied in path order; a SQL-language body may call a function of a file applied
      // after it (pg_restore applies functions so too), and is checked when it is first called.
      await manager.query('SET LOCAL check_function_bodies = off');
      await manager.query(file.sql);
      await manager.query(
        `INSERT INTO sql_functions (name, checksum) VALUES ($1, $2)
         ON CONFLICT (name) DO UPDATE SET checksum = EXCLUDED.checksum, applied_at = now()`,
        [file.name, file.checksum],
      );
    });
  }
  return changed.map((file) => file.name);
}
