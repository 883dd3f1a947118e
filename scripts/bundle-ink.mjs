// Replaces dist/src/tui/ink.js (the notebook's door to Ink) with Ink bundled into one module.
// Ink's own files are some 480 modules (es-toolkit's index alone 415), and loading them was most of
// the notebook's start-up. React stays outside (the notebook's components use the same React);
// Ink's development tools, only loaded with DEV=true, stay outside too.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

// (build/index.js: Ink's package exports nothing else, not even its package.json)
const inkDir = dirname(dirname(fileURLToPath(import.meta.resolve('ink'))));
const source = readFileSync('src/tui/ink.ts', 'utf8');
const names = /export \{([^}]*)\} from 'ink';/.exec(source)?.[1];
if (!names) throw new Error("bundle-ink: src/tui/ink.ts has no `export { ... } from 'ink'`");

const entry = `
export {${names}} from ${JSON.stringify(join(inkDir, 'build/index.js'))};
import instances from ${JSON.stringify(join(inkDir, 'build/instances.js'))};
export async function inkInstances() { return instances; }
`;

// Text widths: string-width for the libraries bundled with Ink, and Ink's text measuring (whose
// cache kept every text ever drawn), from the notebook's own module, src/tui/lib/textWidth.ts;
// Ink's wrapping and truncation from src/tui/lib/inkWrapText.ts.
const textWidth = join(process.cwd(), 'dist/src/tui/lib/textWidth.js');
const fastWidths = {
  name: 'text-width',
  setup(b) {
    b.onResolve({ filter: /^string-width$/ }, (args) =>
      args.importer === textWidth ? undefined : { path: textWidth },
    );
    b.onResolve({ filter: /measure-text\.js$/ }, () => ({
      path: join(process.cwd(), 'dist/src/tui/lib/inkMeasureText.js'),
    }));
    // Truncation that never overshoots, and a bounded cache (src/tui/lib/inkWrapText.ts).
    b.onResolve({ filter: /wrap-text\.js$/ }, (args) =>
      args.importer.includes('/ink/build/')
        ? { path: join(process.cwd(), 'dist/src/tui/lib/inkWrapText.js') }
        : undefined,
    );
  },
};

// Yoga's WebAssembly is embedded as base64 in a data: URL. Its loader fetches that URL whenever
// `fetch` exists, and the first touch of Node's `fetch` loads undici (some 25 ms of start-up) to
// decode what the loader's own fallback decodes in place: the loader takes that fallback always.
const YOGA_FETCH = 'return w||"function"!=typeof fetch?';
const yogaInPlace = {
  name: 'yoga-in-place',
  setup(b) {
    b.onLoad({ filter: /yoga-wasm-base64-esm\.js$/ }, (args) => {
      const code = readFileSync(args.path, 'utf8');
      if (!code.includes(YOGA_FETCH))
        throw new Error(`bundle-ink: yoga's loader changed; no \`${YOGA_FETCH}\` in ${args.path}`);
      return { contents: code.replace(YOGA_FETCH, 'return true?'), loader: 'js' };
    });
  },
};

await build({
  plugins: [fastWidths, yogaInPlace],
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
