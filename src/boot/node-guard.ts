/**
 * Loaded first by main.ts, before Nest: Nest 12, the exact-money JSON parser (24.9) and
 * TypeORM 1.x (24.11 on the 24 line) need a recent Node 24, and on an older Node they fail
 * later in confusing ways (bodies with numbers refused as "not valid JSON"). The same floor
 * is package.json "engines", which `npm ci` enforces (.npmrc engine-strict). This file must
 * stay free of imports and of newer syntax.
 */
export const REQUIRED_NODE = { major: 24, minor: 11 };

/** The message to print when this Node cannot run the service, or undefined when it can. */
export function nodeVersionProblem(version: string): string | undefined {
  const [major, minor] = version.split('.').map(Number);
  const { major: needMajor, minor: needMinor } = REQUIRED_NODE;
  if (major > needMajor || (major === needMajor && minor >= needMinor)) return undefined;
  return (
    `Payment service failed to start: Node.js ${needMajor}.${needMinor} or newer is required, this is Node.js ${version}. ` +
    `Install Node ${needMajor} LTS (for example \`nvm install\` in this directory, which reads .nvmrc, ` +
    `or https://nodejs.org/en/download), then run \`npm ci && npm start\` again.`
  );
}

const problem = nodeVersionProblem(process.versions.node);
if (problem) {
  console.error(problem);
  process.exit(1);
}
