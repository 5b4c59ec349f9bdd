#!/usr/bin/env node
// `redkite`: the controller's command line.
//
// Installed from npm, the package holds only compiled JavaScript (lib/), and that is what runs: no TypeScript
// loader at run time, so it works under a read-only root file system and any uid. In a checkout (the TypeScript
// sources beside this folder and tsx installed) the sources run through tsx instead, so the end-to-end tests and
// `npx redkite` never pick up a lib/ left over from an earlier build.
const fs = require('node:fs');
const path = require('node:path');

function loadCli() {
  const sources = path.join(__dirname, '..', 'operator', 'cli.ts');
  if (fs.existsSync(sources) && canResolve('tsx/cjs')) {
    require('tsx/cjs');
    return require(sources);
  }
  const compiled = path.join(__dirname, '..', 'lib', 'operator', 'cli.js');
  if (!fs.existsSync(compiled)) {
    throw new Error(`${compiled} is missing: run \`npm run build\` (or install the package from npm, which ships it)`);
  }
  return require(compiled);
}

function canResolve(request) {
  try {
    require.resolve(request);
    return true;
  } catch (error) {
    if (error.code === 'MODULE_NOT_FOUND') return false;
    throw error;
  }
}

try {
  loadCli()
    .buildCli()
    .parseAsync(process.argv)
    .catch(fail);
} catch (error) {
  fail(error);
}

function fail(error) {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
}
