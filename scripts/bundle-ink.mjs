// Replaces dist/src/tui/ink.js (the notebook's door to Ink) with Ink bundled into one module.
// Ink's own files are some 480 modules (es-toolkit's index alone 415), and loading them was most of
// the notebook's start-up. React stays outside (the notebook's components use the same React);
// Ink's development tools, only loaded with DEV=true, stay outside too.
// What the bundle changes in Ink is written down in docs/ink.md, with the private fields the
// notebook reads: the patches in patches/ and three module substitutions (ink-patches.mjs).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { buildPlain } from './build-plain.mjs';
import { checkInkPin, inkDir, inkPatches, inkSubstitutions } from './ink-patches.mjs';

const plain = buildPlain();
// (OMP_EVAL_BUILD_PLAIN=ink-bundle: dist/src/tui/ink.js stays src/tui/ink.ts compiled, Ink's own files)
if (plain.has('ink-bundle')) process.exit(0);

// package.json pins the one Ink version the patches and the notebook's use of Ink's internals
// were made for, and it is the one installed.
checkInkPin();
const ink = inkDir();
const source = readFileSync('src/tui/ink.ts', 'utf8');
const names = /export \{([^}]*)\} from 'ink';/.exec(source)?.[1];
if (!names) throw new Error("bundle-ink: src/tui/ink.ts has no `export { ... } from 'ink'`");

const entry = `
export {${names}} from ${JSON.stringify(join(ink, 'build/index.js'))};
import instances from ${JSON.stringify(join(ink, 'build/instances.js'))};
export async function inkInstances() { return instances; }
`;

// Module substitutions (docs/ink.md): Ink's text widths, measuring and wrapping from the
// notebook's own modules (src/tui/text/textWidth.ts, inkMeasureText.ts, inkWrapText.ts).
const substitutions = inkSubstitutions(join(process.cwd(), 'dist/src/tui/text'));

// The patches in patches/, applied to Ink's files (and its dependencies') as they are loaded.
// (none with OMP_EVAL_BUILD_PLAIN=ink-patches)
const patches = inkPatches(plain.has('ink-patches') ? [] : undefined);

await build({
  plugins: [substitutions.plugin, patches.plugin],
  stdin: { contents: entry, resolveDir: process.cwd(), loader: 'js', sourcefile: 'ink-entry.js' },
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  outfile: 'dist/src/tui/ink.js',
  external: ['react', './devtools.js'],
  // Only React's production builds are bundled (the notebook loads React's production build too):
  // the development build of react-reconciler alone was 690 KB to parse at every start.
  define: { 'process.env.NODE_ENV': '"production"' },
  // CommonJS inside the bundle (react-reconciler) requires React from node_modules.
  banner: {
    js: "import { createRequire as __ompRequire } from 'node:module'; const require = __ompRequire(import.meta.url);",
  },
  legalComments: 'none',
  logLevel: 'warning',
});

const unused = [
  ...patches.notApplied(),
  ...substitutions.unused().map((name) => `the substitution of ${name}`),
];
if (unused.length)
  throw new Error(
    `bundle-ink: Ink (${ink}) no longer loads what these change: ${unused.join(', ')}; see docs/ink.md, "Upgrading Ink"`,
  );
