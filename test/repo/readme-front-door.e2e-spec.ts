import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { REPO_ROOT } from '../../scripts/lib/service-process';

/** README.md and every Markdown file under docs/, its subfolders included. */
function documents(): string[] {
  const under = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory() ? under(join(dir, entry.name)) : entry.name.endsWith('.md') ? [join(dir, entry.name)] : [],
    );
  return [join(REPO_ROOT, 'README.md'), ...under(join(REPO_ROOT, 'docs'))];
}

/** Issue 39: the README is a front door, the docs say how things are, and git keeps the history. */
describe('the README and docs/', () => {
  it('the README has at most 300 lines', () => {
    const lines = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8').split('\n');
    expect(lines.length).toBeLessThanOrEqual(300 + 1); // the last line's newline
  });

  it('hold no dated diary: no benchmark "sittings", no "Diagnosed on <date>"', () => {
    expect(documents().length).toBeGreaterThan(10);
    const diary = documents().flatMap((path) =>
      readFileSync(path, 'utf8')
        .split('\n')
        .map((line, i) => ({ at: `${relative(REPO_ROOT, path)}:${i + 1}`, line }))
        .filter(({ line }) => /\bsittings?\b|Diagnosed on/i.test(line))
        .map(({ at }) => at),
    );
    expect(diary).toEqual([]);
  });

  it('link only to files that exist', () => {
    const broken = documents().flatMap((path) =>
      [...readFileSync(path, 'utf8').matchAll(/\]\(([^)\s]+)\)/g)]
        .map(([, target]) => target.split('#')[0])
        .filter((target) => target !== '' && !/^[a-z]+:/.test(target))
        .filter((target) => !existsSync(join(dirname(path), target)))
        .map((target) => `${relative(REPO_ROOT, path)} -> ${target}`),
    );
    expect(broken).toEqual([]);
  });
});
