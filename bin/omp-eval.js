#!/usr/bin/env node
// Thin launcher: the compiled CLI, bundled, lives in dist/cli/ (`npm run build`).
import { existsSync } from 'node:fs';

const cli = new URL('../dist/cli/cli.js', import.meta.url);
if (!existsSync(cli)) {
  process.stderr.write('omp-eval is not built yet: run `npm run build` (or `npm start`) first.\n');
  process.exit(1);
}
await import(cli.href);
