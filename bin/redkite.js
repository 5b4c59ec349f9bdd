#!/usr/bin/env node
// Runs the TypeScript CLI through tsx, so `npx redkite run` works straight from a checkout.
require('tsx/cjs');
const { buildCli } = require('../operator/cli.ts');
buildCli()
  .parseAsync(process.argv)
  .catch((error) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
