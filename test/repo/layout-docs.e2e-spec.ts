import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const REPO = join(__dirname, '..', '..');
const read = (path: string) => readFileSync(join(REPO, path), 'utf8');

/** Every folder directly under src/: the modules and the shared code. */
const SRC_FOLDERS = readdirSync(join(REPO, 'src'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

/** The folders the Layout of docs/architecture.md lists under src/: its indented `name/` lines. */
function layoutFolders(): string[] {
  const architecture = read('docs/architecture.md');
  const start = architecture.indexOf('\n## Layout\n');
  const end = architecture.indexOf('\n## ', start + 1);
  const section = architecture.slice(start, end < 0 ? undefined : end);
  const block = /```\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  return [...block.matchAll(/^ {2}([a-z][a-z0-9-]*)\/ /gm)].map((match) => match[1]).sort();
}

describe('the layout documentation matches src/', () => {
  it('finds the folders of src/ to compare with', () => {
    expect(SRC_FOLDERS).toEqual(expect.arrayContaining(['database', 'ledger', 'transactions', 'users']));
  });

  it("docs/architecture.md's Layout lists every folder of src/, and none that is gone", () => {
    expect(layoutFolders()).toEqual(SRC_FOLDERS);
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
