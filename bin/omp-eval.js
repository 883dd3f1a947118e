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
// Their Python kernel's process is spawned first, from the last call's recipe (src/modes/launchEarly.ts),
// so that the interpreter starts while the script is read and compiled; the script's main takes it.
let fast;
let early;
let launch;
try {
  launch = await import('../dist/cli/launch.js');
  const argv = process.argv.slice(2);
  const face = launch.guessFace(argv);
  // (the ES modules' own start spawns from the recipe when the script is not used: spawned here, the
  // process would be dropped and spawned again)
  if (face && launch.cachedBundleOn()) {
    early = launch.spawnFirst(argv);
    fast = launch.runCachedBundle(new URL('../dist/cli/fast.cjs', import.meta.url), face, argv, {
      handOff: early,
    });
  }
} catch {
  // (a plain build has no launch.js: OMP_EVAL_BUILD_PLAIN=cli-bundle)
}
if (!fast) launch?.dropFirst(early);
await (fast ?? import(cli.href));
