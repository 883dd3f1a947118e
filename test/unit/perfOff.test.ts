/**
 * OMP_EVAL_PERF_OFF (src/eval/perfOff.ts) and OMP_EVAL_BUILD_PLAIN (scripts/build-plain.mjs): the
 * speed tricks' switches, and the WebAssembly control scan's off path, which must answer as the
 * scanner does (docs/performance.md: off, only speed differs). The kernels' switches are run in
 * test/integration/perf-off.test.ts, the notebook's in test/e2e/perf-off.test.ts.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createExecutor } from '../../src/eval/index.js';
import * as scan from '../../src/eval/output/controlScan.js';
import * as text from '../../src/eval/output/text.js';
import { PERF_SWITCHES, perfOff, unknownPerfSwitches } from '../../src/eval/perfOff.js';

afterEach(() => {
  vi.unstubAllEnvs();
  vi.resetModules();
});

describe('OMP_EVAL_PERF_OFF', () => {
  it('names the tricks to turn off, separated by commas or spaces', () => {
    const env = { OMP_EVAL_PERF_OFF: 'jit, wasm-scan recipe' };
    expect(PERF_SWITCHES.filter((name) => perfOff(name, env))).toEqual(['jit', 'wasm-scan', 'recipe']);
    expect(PERF_SWITCHES.some((name) => perfOff(name, {}))).toBe(false);
    // (a name is whole: `pump` is not `pump-batch`)
    expect(perfOff('pump-batch', { OMP_EVAL_PERF_OFF: 'pump' })).toBe(false);
  });

  it('a name that is no switch is told to the front end, which turns nothing off', async () => {
    expect(unknownPerfSwitches({ OMP_EVAL_PERF_OFF: 'jit, jitt,recipe pump' })).toEqual(['jitt', 'pump']);
    expect(unknownPerfSwitches({})).toEqual([]);
    vi.stubEnv('OMP_EVAL_PERF_OFF', 'jit,jitt');
    const warnings: string[] = [];
    const executor = createExecutor({ logger: { trace: () => {}, warn: (m) => warnings.push(m) } });
    await executor.dispose();
    expect(warnings).toEqual([
      `OMP_EVAL_PERF_OFF names no switch called jitt (nothing is turned off by it); the switches are ${PERF_SWITCHES.join(', ')}`,
    ]);
  });
});

describe('the control scan turned off (wasm-scan)', () => {
  const CONTROL = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]/;
  const CONTROL_OR_CR = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;
  /** Long texts (the scanner's), with control characters, `\r`, and characters beyond Latin-1. */
  const unit = fc.oneof(
    fc.integer({ min: 0, max: 0xff }).map((code) => String.fromCharCode(code)),
    fc.constantFrom('\u4e1b', '\u011b', '😀', '\r', '\x1b[31m', 'a'.repeat(100), 'line\n'),
  );
  const longText = fc.string({ unit, minLength: 20, maxLength: 200 });

  async function offModules() {
    vi.stubEnv('OMP_EVAL_PERF_OFF', 'wasm-scan');
    vi.resetModules();
    const off = await import('../../src/eval/output/controlScan.js');
    const offText = await import('../../src/eval/output/text.js');
    expect(off).not.toBe(scan);
    return { off, offText };
  }

  it('has no scanner, and answers as the WebAssembly path on any text', async () => {
    // (the scanner is loaded at its first use, which must come before the variable is set)
    expect(scan.maybeControlAt('x'.repeat(200), true)).toBe(-1);
    const { off, offText } = await offModules();
    expect(off.maybeControlAt('x'.repeat(200), true)).toBeUndefined();
    fc.assert(
      fc.property(longText, fc.boolean(), (sample, crOk) => {
        const pattern = crOk ? CONTROL : CONTROL_OR_CR;
        expect(off.hasControl(sample, pattern, crOk)).toBe(scan.hasControl(sample, pattern, crOk));
        expect(offText.sanitize(sample)).toBe(text.sanitize(sample));
        expect(offText.isPlainText(sample)).toBe(text.isPlainText(sample));
      }),
      { numRuns: 500 },
    );
  });
});

describe('OMP_EVAL_BUILD_PLAIN', () => {
  it('names the build-time tricks to leave out; 1 is all; a wrong name stops the build', async () => {
    const { buildPlain } = (await import(new URL('../../scripts/build-plain.mjs', import.meta.url).href)) as {
      buildPlain(value?: string): Set<string>;
    };
    expect([...buildPlain('')]).toEqual([]);
    expect([...buildPlain('ink-patches,cli-bundle')]).toEqual(['ink-patches', 'cli-bundle']);
    expect([...buildPlain('1')].sort()).toEqual(['cli-bundle', 'ink-bundle', 'ink-patches']);
    expect(() => buildPlain('ink')).toThrow(/unknown ink \(known: 1, all, ink-patches/);
  });
});
