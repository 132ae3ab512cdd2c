import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The folder holding package.json above `from`: the same answer from src/ (ts-jest) and dist/src/ (node). */
export function findRepoRoot(from: string = __dirname): string {
  let dir = from;
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${from}`);
    dir = parent;
  }
  return dir;
}
