/**
 * The notebook's one door to Ink. At build time (scripts/bundle-ink.mjs) the compiled form of this
 * file is replaced by Ink bundled into one module, React left outside: Ink loads some 480 files
 * (es-toolkit's index alone 415), which took most of the notebook's start-up; one file loads in a
 * quarter of the time. Tests run this file as it is, against Ink's own files. Everything the
 * notebook takes from Ink beyond its public API is listed in docs/ink.md.
 */
export { Box, render, renderToString, Text, useStdin, useStdout } from 'ink';

/**
 * Ink's instances by stdout, which Ink 6.8 does not export (terminal/inkTerminal.ts needs them),
 * reached by file; the bundle returns its own. Their fields the notebook reads: docs/ink.md, guarded
 * by test/unit/ink-contract.test.ts.
 */
export async function inkInstances(): Promise<WeakMap<object, unknown> | undefined> {
  try {
    const entry = import.meta.resolve('ink');
    const module = (await import(new URL('./instances.js', entry).href)) as {
      default: WeakMap<object, unknown>;
    };
    return module.default;
  } catch {
    return undefined;
  }
}
