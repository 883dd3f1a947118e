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

// Ink draws each frame into a new Output: a fresh blank cell object (with its own styles array)
// for every cell of the frame, and caches of styled characters and widths that die with the frame,
// so every line of the live region is tokenized into per-character objects again at every tick.
// Those allocations were most of the notebook's garbage while a cell runs. Blank cells share one
// frozen object, and the caches live across frames (dropped whole past OUTPUT_CACHE_ENTRIES).
const OUTPUT_BLANK = `row.push({
                    type: 'char',
                    value: ' ',
                    fullWidth: false,
                    styles: [],
                });`;
const OUTPUT_CACHES = 'caches = new OutputCaches();';
const OUTPUT_CACHE_ENTRIES = 600;
const sharedOutputCaches = {
  name: 'shared-output-caches',
  setup(b) {
    b.onLoad({ filter: /ink\/build\/output\.js$/ }, (args) => {
      const code = readFileSync(args.path, 'utf8');
      for (const part of [OUTPUT_BLANK, OUTPUT_CACHES])
        if (!code.includes(part))
          throw new Error(`bundle-ink: Ink's Output changed; no \`${part}\` in ${args.path}`);
      const shared = `
const ompBlankCell = Object.freeze({ type: 'char', value: ' ', fullWidth: false, styles: Object.freeze([]) });
let ompCaches;
function ompSharedCaches() {
  const c = ompCaches;
  if (!c || c.styledChars.size + c.widths.size + c.blockWidths.size > ${OUTPUT_CACHE_ENTRIES}) ompCaches = new OutputCaches();
  return ompCaches;
}
`;
      const contents = code
        .replace(OUTPUT_BLANK, 'row.push(ompBlankCell);')
        .replace(OUTPUT_CACHES, 'caches = ompSharedCaches();')
        .replace('export default class Output {', `${shared}export default class Output {`);
      return { contents, loader: 'js' };
    });
  },
};

// Then each row of the frame is turned back into a string, and for every character the styles of
// the one before are diffed with its own (three Sets and some arrays each time), although they are
// mostly the same: the diff is skipped when they are equal (its result is empty then), and the
// characters between two escape codes share one styles array instead of a copy each.
const STYLED_DIFF = 'ret += ansiCodesToString(diffAnsiCodes(chars[i - 1].styles, char.styles));';
const STYLED_END = 'ret += ansiCodesToString(diffAnsiCodes(char.styles, []));';
const STYLED_COPY = 'styles: [...codes],';
const sameStyles = {
  name: 'same-styles',
  setup(b) {
    b.onLoad({ filter: /ansi-tokenize\/build\/styledChars\.js$/ }, (args) => {
      const code = readFileSync(args.path, 'utf8');
      for (const part of [STYLED_DIFF, STYLED_END, STYLED_COPY])
        if (!code.includes(part))
          throw new Error(`bundle-ink: ansi-tokenize changed; no \`${part}\` in ${args.path}`);
      const helper = `
function ompSameStyles(a, b) {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i].code !== b[i].code || a[i].endCode !== b[i].endCode) return false;
  return true;
}
`;
      const contents = `${code
        .replace(STYLED_DIFF, `if (!ompSameStyles(chars[i - 1].styles, char.styles)) ${STYLED_DIFF}`)
        .replace(STYLED_END, `if (char.styles.length) ${STYLED_END}`)
        .replace(STYLED_COPY, 'styles: codes,')}${helper}`;
      return { contents, loader: 'js' };
    });
  },
};

await build({
  plugins: [fastWidths, yogaInPlace, sharedOutputCaches, sameStyles],
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
