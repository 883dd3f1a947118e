// The notebook's difference from Ink's code, as scripts/bundle-ink.mjs applies it (docs/ink.md):
// the exact version pin, three module substitutions, and the files in patches/, unified diffs against files of Ink and its dependencies, each applied to
// the installed file's text as esbuild loads it, with the `diff` package's applyPatch and no fuzz
// (every context line must match). node_modules is never written to. Anything that does not match
// what the patches were made against (Ink's version, a target's version, a hunk's context) stops
// the build with a message that names the patch and the versions.
import { readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import diff from 'diff';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PATCHES = join(ROOT, 'patches');
const HOW = 'see docs/ink.md, "Upgrading Ink"';

/** Ink's installed package directory (its package exports only build/index.js). */
export function inkDir() {
  return dirname(dirname(fileURLToPath(import.meta.resolve('ink'))));
}

function versionIn(dir) {
  return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).version;
}

/**
 * package.json pins Ink to one exact version, and that version is the one installed: the patches
 * and the private fields the notebook reads (docs/ink.md) hold for that version only.
 */
export function checkInkPin(root = ROOT, dir = inkDir()) {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const range = pkg.dependencies?.ink ?? pkg.devDependencies?.ink;
  const installed = versionIn(dir);
  if (!/^\d+\.\d+\.\d+$/.test(range ?? ''))
    throw new Error(
      `bundle-ink: package.json must pin ink to one exact version (it says ${JSON.stringify(range)}): ` +
        `the notebook patches Ink and reads its private fields; ${HOW}`,
    );
  if (range !== installed)
    throw new Error(
      `bundle-ink: package.json pins ink ${range} but ink ${installed} is installed (${dir}); ` +
        `run npm ci, or to upgrade Ink ${HOW}`,
    );
  return installed;
}

/**
 * The patches in `dir`: each a header of `#` lines, one of them `# Target: <package>@<version>
 * <file in the package>`, then a unified diff of that one file (labels a/<file> and b/<file>).
 */
export function readPatches(dir = PATCHES) {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.patch'))
    .sort()
    .map((f) => {
      const text = readFileSync(join(dir, f), 'utf8');
      const target = /^# Target: (@?[^@\s]+)@(\S+) (\S+)$/m.exec(text);
      if (!target)
        throw new Error(`bundle-ink: patches/${f} has no "# Target: <package>@<version> <file>" line`);
      const [, pkg, version, file] = target;
      const diffs = diff.parsePatch(text);
      if (diffs.length !== 1 || diffs[0].newFileName !== `b/${file}` || !diffs[0].hunks.length)
        throw new Error(`bundle-ink: patches/${f} must be one diff of b/${file}, as its Target line says`);
      return { name: `patches/${f}`, pkg, version, file, diff: diffs[0] };
    });
}

/**
 * `source` (the text of the patch's target, from `pkg`@`installed`) with the patch applied. Throws,
 * naming the patch and the versions, when the version is not the one the patch was made against or
 * a hunk's context does not match.
 */
export function applyInkPatch(patch, source, installed, ink = versionIn(inkDir())) {
  const made = `${patch.pkg}@${patch.version}`;
  const found = `${patch.pkg}@${installed} (with ink@${ink})`;
  if (installed !== patch.version)
    throw new Error(
      `bundle-ink: ${patch.name} was made against ${made}, but ${found} is installed: check its ` +
        `change still holds for ${patch.file}, remake it against that version and update its Target line; ${HOW}`,
    );
  const patched = diff.applyPatch(source, patch.diff);
  if (patched === false)
    throw new Error(
      `bundle-ink: ${patch.name} does not apply to ${patch.file} of ${found}: the code it changes is ` +
        `no longer as it was in ${made}; ${HOW}`,
    );
  return patched;
}

/**
 * An esbuild plugin that applies each patch to its target as the bundle loads it. `applied()` says
 * which patches were applied; a patch whose target the bundle never loaded did nothing, which
 * bundle-ink.mjs treats as an error too.
 */
export function inkPatches(patches = readPatches(), ink = versionIn(inkDir())) {
  const done = new Set();
  const plugin = {
    name: 'ink-patches',
    setup(b) {
      for (const patch of patches) {
        const suffix = `/node_modules/${patch.pkg}/${patch.file}`;
        const filter = new RegExp(`${suffix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);
        b.onLoad({ filter }, (args) => {
          const path = args.path.replaceAll('\\', '/');
          const dir = path.slice(0, -patch.file.length - 1);
          const contents = applyInkPatch(patch, readFileSync(args.path, 'utf8'), versionIn(dir), ink);
          done.add(patch.name);
          return { contents, loader: 'js' };
        });
      }
    },
  };
  return {
    plugin,
    /** The patches whose target was never loaded: an error after the build. */
    notApplied: () => patches.filter((p) => !done.has(p.name)).map((p) => `${p.name} (${basename(p.file)})`),
  };
}

/**
 * An esbuild plugin that puts the notebook's modules (compiled, in `lib`: dist/src/tui/text) in
 * place of three of Ink's: string-width for every library in the bundle, and Ink's text measuring
 * (whose cache kept every text ever drawn), from textWidth.js (narrow text measured without
 * segmenting, recent strings cached); Ink's wrapping and truncation from inkWrapText.js (truncation
 * that never overshoots, and a bounded cache). `unused()` names those that took the place of
 * nothing (Ink renamed or dropped the module): an error after the build.
 */
export function inkSubstitutions(lib) {
  const textWidth = join(lib, 'textWidth.js');
  const hits = new Map([
    ['string-width', 0],
    ['measure-text.js', 0],
    ['wrap-text.js', 0],
  ]);
  const to = (name, path) => {
    hits.set(name, hits.get(name) + 1);
    return { path };
  };
  const plugin = {
    name: 'ink-substitutions',
    setup(b) {
      b.onResolve({ filter: /^string-width$/ }, (args) =>
        args.importer === textWidth ? undefined : to('string-width', textWidth),
      );
      b.onResolve({ filter: /measure-text\.js$/ }, () =>
        to('measure-text.js', join(lib, 'inkMeasureText.js')),
      );
      b.onResolve({ filter: /wrap-text\.js$/ }, (args) =>
        args.importer.replaceAll('\\', '/').includes('/ink/build/')
          ? to('wrap-text.js', join(lib, 'inkWrapText.js'))
          : undefined,
      );
    },
  };
  return { plugin, unused: () => [...hits].filter(([, n]) => n === 0).map(([name]) => name) };
}
