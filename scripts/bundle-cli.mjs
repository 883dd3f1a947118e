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
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
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

/** Each module's `import.meta.url` made its file's in dist/src/ (`base`: the bundle's own URL). */
const metaUrlOfOrigin = (base = 'import.meta.url', edit = (_path, contents) => contents) => ({
  name: 'import-meta-url-of-origin',
  setup(b) {
    b.onLoad({ filter: /\.js$/ }, (args) => {
      if (!args.path.startsWith(`${sourceRoot}/`)) return undefined;
      let contents = edit(args.path, readFileSync(args.path, 'utf8'));
      if (contents.includes('import.meta.url')) {
        const origin = JSON.stringify(relative(outdir, args.path));
        contents = contents.replaceAll('import.meta.url', `new URL(${origin}, ${base}).href`);
      }
      return { contents, loader: 'js', resolveDir: dirname(args.path) };
    });
  },
});

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
  plugins: [metaUrlOfOrigin(), packagesOutsideBut(['commander', ...MCP_PACKAGES])],
  // Ink is bundled already (bundle-ink.mjs); its devtools stay a lazy import of their own.
  external: ['./devtools.js'],
  banner: {
    js: "import { createRequire as __ompCreateRequire } from 'node:module';\nconst require = __ompCreateRequire(import.meta.url);",
  },
  legalComments: 'none',
  logLevel: 'warning',
});

// `run` and `tool` again, as one classic script (CommonJS) that bin/omp-eval.js compiles with V8's
// code cache of an earlier call (src/eval/launch/codeCache.ts): Node 20 keeps no code cache for ES
// modules. The same modules, with the same entry as dist/src/main.js (startEarly, then cli.js); the
// two top-level awaits (main.js's, cli.js's parse) become the exported main's. The front ends that
// `run` and `tool` never reach (the notebook, mcp, attach, setup, the line mode) stay ES modules of
// dist/src/, imported if they ever are (bin/omp-eval.js takes this path only when the command is
// surely run or tool: modes/early.ts, guessFace). Packages are required at run time, as in the chunks.
// The script is the body of `function (exports, require, module, __filename, __dirname, __ompImport)`.
const FAST = join(outdir, 'fast.cjs');
const CLI_PARSE = 'await program.parseAsync(process.argv);';
const OTHER_FRONT_ENDS =
  /^\.\.?\/(.*\/)?(tui\/index|modes\/(mcp|share)\/.*|modes\/(repl|setup|sandboxCheck))\.js$/;
const fastEntry = {
  name: 'fast-entry',
  setup(b) {
    b.onResolve({ filter: /^omp-fast-entry$/ }, () => ({ path: 'omp-fast-entry', namespace: 'omp' }));
    b.onLoad({ filter: /.*/, namespace: 'omp' }, () => ({
      contents: [
        "import { discardEarly, startEarly } from './modes/early.js';",
        'export async function main(argv, handed) {',
        '  await startEarly(argv, handed);',
        '  try {',
        "    await (await import('./cli.js')).parsed;",
        '  } finally {',
        '    discardEarly();',
        '  }',
        '}',
      ].join('\n'),
      resolveDir: sourceRoot,
      loader: 'js',
    }));
    b.onResolve({ filter: OTHER_FRONT_ENDS }, (args) =>
      args.kind === 'dynamic-import' && args.importer.startsWith(`${sourceRoot}/`)
        ? { path: `./${relative(outdir, resolve(args.resolveDir, args.path))}`, external: true }
        : undefined,
    );
  },
};
const parsedNotAwaited = (path, contents) => {
  if (path !== join(sourceRoot, 'cli.js')) return contents;
  if (!contents.includes(CLI_PARSE)) throw new Error(`bundle-cli: ${path} no longer ends with ${CLI_PARSE}`);
  return contents.replace(CLI_PARSE, 'export const parsed = program.parseAsync(process.argv);');
};
await build({
  entryPoints: ['omp-fast-entry'],
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  outfile: FAST,
  plugins: [
    fastEntry,
    metaUrlOfOrigin("require('node:url').pathToFileURL(__filename)", parsedNotAwaited),
    packagesOutsideBut(['commander']),
  ],
  external: ['./devtools.js'],
  legalComments: 'none',
  logLevel: 'warning',
  write: false,
  metafile: true,
}).then(({ outputFiles, metafile }) => {
  let code = outputFiles[0].text;
  // A classic script's import() needs a loader given to vm.Script, experimental and noisy in Node
  // 20 and 22: its dynamic imports (all of packages, Node's modules and the front ends above) go
  // through the loader's __ompImport instead, an import() of an ES module.
  for (const { path, kind } of Object.values(metafile.outputs)[0].imports)
    if (kind === 'dynamic-import')
      code = code.replaceAll(`import(${JSON.stringify(path)})`, `__ompImport(${JSON.stringify(path)})`);
  const left = /\bimport\(.{0,40}/.exec(code);
  if (left) throw new Error(`bundle-cli: fast.cjs has an import() left: ${left[0]}`);
  // A package required where the module is defined would be one that Node 20 may not require (an
  // ES module): the chunks' packages are all required or imported where they are used.
  const hoisted = /^var \w+ = (?:__toESM\()?require\("(?!node:)([^"]+)"\)/m.exec(code);
  if (hoisted) throw new Error(`bundle-cli: fast.cjs requires ${hoisted[1]} as it loads`);
  const digest = createHash('sha256').update(code).digest('hex');
  writeFileSync(FAST, `//omp-eval-bundle ${digest}\n${code}`);
});

// What bin/omp-eval.js loads first: the guess of the command, the recipe's spawn (run and tool's
// kernel, before the script above is read and compiled) and the code cache's loader.
await build({
  stdin: {
    contents: [
      "export { guessFace } from './modes/early.js';",
      "export { cachedBundleOn, runCachedBundle } from './eval/launch/codeCache.js';",
      "export { dropFirst, spawnFirst } from './modes/launchEarly.js';",
    ].join('\n'),
    resolveDir: sourceRoot,
    loader: 'js',
  },
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  outfile: join(outdir, 'launch.js'),
  plugins: [metaUrlOfOrigin(), packagesOutsideBut([])],
  legalComments: 'none',
  logLevel: 'warning',
});
