import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const REPO = join(__dirname, '..');
const read = (path: string) => readFileSync(join(REPO, path), 'utf8');

/** Every folder directly under src/: the modules and the shared code. */
const SRC_FOLDERS = readdirSync(join(REPO, 'src'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

/** The folders the README's Layout lists under src/: its indented `name/` lines. */
function readmeLayoutFolders(): string[] {
  const readme = read('README.md');
  const section = readme.slice(readme.indexOf('\n## Layout\n'), readme.indexOf('\n## Tests\n'));
  const block = /```\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  return [...block.matchAll(/^ {2}([a-z][a-z0-9-]*)\/ /gm)].map((match) => match[1]).sort();
}

describe('the layout documentation matches src/', () => {
  it('finds the folders of src/ to compare with', () => {
    expect(SRC_FOLDERS).toEqual(expect.arrayContaining(['database', 'ledger', 'transactions', 'users']));
  });

  it("the README's Layout lists every folder of src/, and none that is gone", () => {
    expect(readmeLayoutFolders()).toEqual(SRC_FOLDERS);
  });

  it('docs/architecture.md names every folder of src/, and none that is gone', () => {
    const named = [...read('docs/architecture.md').matchAll(/`src\/([a-z][a-z0-9-]*)\/`/g)].map((match) => match[1]);
    expect([...new Set(named)].sort()).toEqual(SRC_FOLDERS);
  });

  it("every module's *.module.ts opens with a two-line header saying what it owns", () => {
    const modules = SRC_FOLDERS.flatMap((folder) =>
      readdirSync(join(REPO, 'src', folder))
        .filter((file) => file.endsWith('.module.ts'))
        .map((file) => `src/${folder}/${file}`),
    );
    expect(modules.length).toBeGreaterThan(10);
    const withoutHeader = modules.filter((path) => !/^\/\/ Owns [^\n]+\n\/\/ [^\n]+\n(?!\/\/)/.test(read(path)));
    expect(withoutHeader).toEqual([]);
  });
});
