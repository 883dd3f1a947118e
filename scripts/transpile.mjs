// Compiles src/ and bench/ into dist/, one .js (and source map) per .ts/.tsx file, as tsc would
// emit them. Types are checked by `npm run typecheck` (tsc --noEmit, tests included); emitting
// through tsc as well cost a second full type check in every `npm test`. tsconfig.json sets
// `isolatedModules`, so that tsc refuses what a file-by-file compiler could get wrong.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';

const sources = ['src', 'bench'].flatMap((dir) =>
  readdirSync(dir, { recursive: true })
    .map((name) => join(dir, String(name)))
    .filter((path) => /\.tsx?$/.test(path) && !path.endsWith('.d.ts')),
);

await build({
  entryPoints: sources,
  outdir: 'dist',
  outbase: '.',
  format: 'esm',
  platform: 'node',
  target: 'node20',
  jsx: 'automatic',
  sourcemap: true,
  logLevel: 'warning',
});
