// Fails when two folders of src/ import each other, directly or through others: module imports
// point one way. File-level cycles inside one folder are that folder's business.
import { cruise } from 'dependency-cruiser';
import console from 'node:console';
import process from 'node:process';

// The folder to check: src/ unless named (the tests point it at a fixture).
const root = (process.argv[2] ?? 'src').replace(/\/+$/, '');
const result = await cruise([root], {
  tsConfig: { fileName: 'tsconfig.json' },
  doNotFollow: { path: 'node_modules' },
  exclude: { path: '\\.spec\\.ts$' },
  // Type-only imports count: a loop through `import type` is still two folders that know each other.
  tsPreCompilationDeps: true,
});

const folderOf = (path) => {
  if (!path.startsWith(`${root}/`)) return null;
  const rest = path.slice(root.length + 1);
  return rest.includes('/') ? rest.slice(0, rest.indexOf('/')) : '(root)';
};

const edges = new Map();
for (const module of result.output.modules) {
  const from = folderOf(module.source);
  if (!from) continue;
  for (const dependency of module.dependencies) {
    const to = folderOf(dependency.resolved);
    if (!to || to === from) continue;
    if (!edges.has(from)) edges.set(from, new Map());
    edges.get(from).set(to, `${module.source} -> ${dependency.resolved}`);
  }
}

// A cycle is a path back to where it started; depth-first search from every folder.
const cycles = new Set();
function visit(path) {
  const last = path[path.length - 1];
  for (const next of edges.get(last)?.keys() ?? []) {
    if (next === path[0]) cycles.add([...path, next].join(' -> '));
    else if (!path.includes(next)) visit([...path, next]);
  }
}
for (const folder of edges.keys()) visit([folder]);

if (cycles.size === 0) {
  console.log(`No import cycles between the ${edges.size} folders of ${root}/.`);
} else {
  console.error(`Import cycles between folders of ${root}/ (each folder must import one way):`);
  for (const cycle of cycles) {
    const folders = cycle.split(' -> ');
    console.error(`  ${cycle}`);
    for (let i = 0; i + 1 < folders.length; i++) console.error(`    ${edges.get(folders[i]).get(folders[i + 1])}`);
  }
  process.exit(1);
}
