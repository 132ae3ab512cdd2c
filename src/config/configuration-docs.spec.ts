import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from './app-config';

const CONFIGURATION = readFileSync(join(__dirname, '..', '..', 'docs', 'configuration.md'), 'utf8');

/** The variables the "Settings" table of docs/configuration.md lists: the first cell of each row. */
function documentedSettings(): string[] {
  const section = CONFIGURATION.slice(CONFIGURATION.indexOf('\n## Settings\n'));
  const table = section.slice(0, section.indexOf('\n## ', 1));
  return [...table.matchAll(/^\| `([A-Z][A-Z0-9_]*)` +\|/gm)].map((match) => match[1]).sort();
}

/** Every variable loadConfig looks at, in the development and production profiles and with NPCI limits. */
function settingsTheConfigReads(): string[] {
  const read = new Set<string>();
  const profiles: Record<string, string>[] = [{}, { NODE_ENV: 'production' }, { LIMITS_PROFILE: 'npci' }];
  for (const profile of profiles) {
    // An external database and a secret, so that loading touches no DATA_DIR.
    const values: Record<string, string> = {
      DATABASE_URL: 'postgres://payments@127.0.0.1:5432/payments',
      JWT_SECRET: 'a-secret-of-at-least-thirty-two-bytes!!',
      ...profile,
    };
    const record = (key: string | symbol) => {
      if (typeof key === 'string') read.add(key);
    };
    const env = new Proxy(values, {
      get: (target, key) => (record(key), target[key as string]),
      has: (target, key) => (record(key), key in target),
    });
    try {
      loadConfig(env);
    } catch {
      // A problem with these values does not matter here: only which variables were read.
    }
  }
  return [...read].filter((key) => /^[A-Z][A-Z0-9_]*$/.test(key)).sort();
}

describe('docs/configuration.md', () => {
  it('lists every variable the configuration reads, and none it does not', () => {
    const read = settingsTheConfigReads();
    const documented = documentedSettings();
    expect(read.length).toBeGreaterThan(40);
    expect(read.filter((name) => !documented.includes(name))).toEqual([]);
    expect(documented.filter((name) => !read.includes(name))).toEqual([]);
  });

  it('lists each variable once', () => {
    const documented = documentedSettings();
    expect(documented.filter((name, i) => documented.indexOf(name) !== i)).toEqual([]);
  });
});
