// Replaces dist/src/tui/ink.js (the notebook's door to Ink) with Ink bundled into one module.
// Ink's own files are some 480 modules (es-toolkit's index alone 415), and loading them was most of
// the notebook's start-up. React stays outside (the notebook's components use the same React);
// Ink's development tools, only loaded with DEV=true, stay outside too.
// What the bundle changes in Ink is written down in docs/ink.md: the patches in patches/ (applied by
// ink-patches.mjs), the module substitutions below, and the private fields the notebook reads.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { checkInkPin, inkDir, inkPatches } from './ink-patches.mjs';

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

// Module substitutions (docs/ink.md): text widths, string-width for the libraries bundled with
// Ink, and Ink's text measuring (whose cache kept every text ever drawn), from the notebook's own
// module, src/tui/lib/textWidth.ts; Ink's wrapping and truncation from src/tui/lib/inkWrapText.ts
// (truncation that never overshoots, and a bounded cache). Each must take the place of something
// Ink loads: one that substituted nothing (Ink renamed or dropped the module) fails the build.
const textWidth = join(process.cwd(), 'dist/src/tui/lib/textWidth.js');
const substituted = new Map([
  ['string-width', 0],
  ['measure-text.js', 0],
  ['wrap-text.js', 0],
]);
const substitute = (name, path) => {
  substituted.set(name, substituted.get(name) + 1);
  return { path };
};
const fastWidths = {
  name: 'text-width',
  setup(b) {
    b.onResolve({ filter: /^string-width$/ }, (args) =>
      args.importer === textWidth ? undefined : substitute('string-width', textWidth),
    );
    b.onResolve({ filter: /measure-text\.js$/ }, () =>
      substitute('measure-text.js', join(process.cwd(), 'dist/src/tui/lib/inkMeasureText.js')),
    );
    b.onResolve({ filter: /wrap-text\.js$/ }, (args) =>
      args.importer.includes('/ink/build/')
        ? substitute('wrap-text.js', join(process.cwd(), 'dist/src/tui/lib/inkWrapText.js'))
        : undefined,
    );
  },
};

// The patches in patches/, applied to Ink's files (and its dependencies') as they are loaded.
const patches = inkPatches();

await build({
  plugins: [fastWidths, patches.plugin],
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
  ...[...substituted].filter(([, n]) => n === 0).map(([name]) => `the substitution of ${name}`),
];
if (unused.length)
  throw new Error(
    `bundle-ink: Ink (${ink}) no longer loads what these change: ${unused.join(', ')}; see docs/ink.md, "Upgrading Ink"`,
  );
