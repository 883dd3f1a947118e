// Bundles the compiled CLI (dist/src/main.js, cli.js and everything of ours they import) into dist/cli/:
// one module for what every command loads, and one chunk per lazily imported front end (the
// notebook, mcp, setup, ...). Loading some 80 separate modules was the larger part of a `run` or
// `tool` call's start-up. Packages stay outside (node_modules), as do the kernels' own files: each
// bundled module's `import.meta.url` is rewritten to the URL of its file in dist/src/, so paths
// relative to it (`../../py/`, `createRequire`) resolve as before.
import { readFileSync, rmSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { build } from 'esbuild';

const outdir = resolve('dist/cli');
const sourceRoot = resolve('dist/src');
// (chunk names carry their content's hash: the last build's would stay beside the new ones)
rmSync(outdir, { recursive: true, force: true });

const metaUrlOfOrigin = {
  name: 'import-meta-url-of-origin',
  setup(b) {
    b.onLoad({ filter: /\.js$/ }, (args) => {
      if (!args.path.startsWith(`${sourceRoot}/`)) return undefined;
      let contents = readFileSync(args.path, 'utf8');
      if (contents.includes('import.meta.url')) {
        const origin = JSON.stringify(relative(outdir, args.path));
        contents = contents.replaceAll('import.meta.url', `new URL(${origin}, import.meta.url).href`);
      }
      return { contents, loader: 'js', resolveDir: dirname(args.path) };
    });
  },
};

await build({
  entryPoints: { cli: 'dist/src/main.js' },
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  outdir,
  packages: 'external',
  // Ink is bundled already (bundle-ink.mjs); its devtools stay a lazy import of their own.
  external: ['./devtools.js'],
  plugins: [metaUrlOfOrigin],
  legalComments: 'none',
  logLevel: 'warning',
});
