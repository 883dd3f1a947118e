#!/usr/bin/env node
// Thin launcher: the compiled CLI, bundled, lives in dist/cli/ (`npm run build`).
import { existsSync } from 'node:fs';

const cli = new URL('../dist/cli/cli.js', import.meta.url);
if (!existsSync(cli)) {
  process.stderr.write('omp-eval is not built yet: run `npm run build` (or `npm start`) first.\n');
  process.exit(1);
}
// `run` and `tool`: the same CLI as one classic script, compiled from V8's code cache of an earlier
// call (src/eval/launch/codeCache.ts); anything else, or where that cannot be, its ES modules.
let fast;
try {
  const { guessFace, runCachedBundle } = await import('../dist/cli/launch.js');
  const argv = process.argv.slice(2);
  const face = guessFace(argv);
  if (face) fast = runCachedBundle(new URL('../dist/cli/fast.cjs', import.meta.url), face, argv);
} catch {
  // (a plain build has no launch.js: OMP_EVAL_BUILD_PLAIN=cli-bundle)
}
await (fast ?? import(cli.href));
