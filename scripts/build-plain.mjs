// OMP_EVAL_BUILD_PLAIN: the build's speed tricks to leave out, for measuring what they still buy
// (docs/performance.md, "The tricks"). They are made at build time, so OMP_EVAL_PERF_OFF cannot
// turn them off: `OMP_EVAL_BUILD_PLAIN=1 npm run build` (or a list of names) builds without them,
// into the same dist/, and behaves the same, only slower to start.
//   ink-patches  Ink bundled without patches/ (the module substitutions stay: one fixes wrapping)
//   ink-bundle   no Ink bundle: the notebook loads Ink's own files, as the tests do
//   cli-bundle   no CLI bundle: dist/cli/cli.js imports dist/src/main.js and its ~80 modules one by
//                one (their `import.meta.url` then needs no rewriting: it is their own), and no
//                classic script for `run` and `tool` (dist/cli/fast.cjs: no code cache either)
const NAMES = ['ink-patches', 'ink-bundle', 'cli-bundle'];

/** The names OMP_EVAL_BUILD_PLAIN turns off (`1` or `all`: every one); a wrong name stops the build. */
export function buildPlain(value = process.env.OMP_EVAL_BUILD_PLAIN) {
  const words = (value ?? '').split(/[\s,]+/).filter(Boolean);
  if (words.includes('1') || words.includes('all')) return new Set(NAMES);
  const unknown = words.filter((w) => !NAMES.includes(w));
  if (unknown.length)
    throw new Error(
      `OMP_EVAL_BUILD_PLAIN: unknown ${unknown.join(', ')} (known: 1, all, ${NAMES.join(', ')})`,
    );
  return new Set(words);
}
