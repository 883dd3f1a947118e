// Bundles the compiled CLI (dist/src/main.js, cli.js and everything of ours they import) into dist/cli/:
// one module for what every command loads, and one chunk per lazily imported front end (the
// notebook, mcp, setup, ...). Loading some 80 separate modules was the larger part of a `run` or
// `tool` call's start-up. Packages stay outside (node_modules), as do the kernels' own files: each
// bundled module's `import.meta.url` is rewritten to the URL of its file in dist/src/, so paths
// relative to it (`../../py/`, `createRequire`) resolve as before.
//
// Except commander, which every command loads: as a CommonJS package imported from ESM, it cost
// 17-23 ms of every start (seven files resolved and wrapped, its index lexed for its exports),
// bundled 8-11 ms. Its `require`s of Node's modules need a `require` in the ESM chunks: each chunk
// gets one (createRequire), unused where nothing of commander is.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { build } from 'esbuild';
import { buildPlain } from './build-plain.mjs';

const outdir = resolve('dist/cli');
const sourceRoot = resolve('dist/src');
// (chunk names carry their content's hash: the last build's would stay beside the new ones)
rmSync(outdir, { recursive: true, force: true });
if (buildPlain().has('cli-bundle')) {
  // (OMP_EVAL_BUILD_PLAIN=cli-bundle: the compiled modules as they are, where bin/omp-eval.js looks)
  mkdirSync(outdir, { recursive: true });
  writeFileSync(`${outdir}/cli.js`, "import '../src/main.js';\n");
  process.exit(0);
}

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

/** Every package stays outside the bundle (as esbuild's `packages: 'external'`) but those named. */
function packagesOutsideBut(bundled) {
  return {
    name: 'packages-outside-but',
    setup(b) {
      // (a bare specifier: not relative, not absolute, not node:)
      b.onResolve({ filter: /^[^./]/ }, (args) => {
        if (args.path.startsWith('node:')) return { path: args.path, external: true };
        const name = args.path.startsWith('@')
          ? args.path.split('/').slice(0, 2).join('/')
          : args.path.split('/')[0];
        return bundled.includes(name) ? undefined : { path: args.path, external: true };
      });
    },
  };
}

// And the MCP SDK with zod, which only `omp-eval mcp` loads (its chunk): some 140 ES modules
// resolved, read and linked one by one before the server could answer `initialize`.
const MCP_PACKAGES = ['@modelcontextprotocol/sdk', 'zod', 'zod-to-json-schema'];

await build({
  entryPoints: { cli: 'dist/src/main.js' },
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  outdir,
  plugins: [metaUrlOfOrigin, packagesOutsideBut(['commander', ...MCP_PACKAGES])],
  // Ink is bundled already (bundle-ink.mjs); its devtools stay a lazy import of their own.
  external: ['./devtools.js'],
  banner: {
    js: "import { createRequire as __ompCreateRequire } from 'node:module';\nconst require = __ompCreateRequire(import.meta.url);",
  },
  legalComments: 'none',
  logLevel: 'warning',
});
