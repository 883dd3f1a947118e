/**
 * JavaScript cells against Node's own REPL (issue 17): every case of js-repl-cases.ts runs in a
 * js kernel and in Node's `repl` module (test/fixtures/node-repl-driver.cjs), in one session on
 * each side; per input, the result's inspected form (or the error's type) and what console
 * calls printed must be the same. At least 95% of the cases agree, and every case that does not
 * is a departure the README's "Departures from Node's REPL" explains.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { Frame } from '../../src/eval/protocol/index.js';
import { run, startKernel } from '../helpers/kernel.js';
import { REPL_CASES } from './js-repl-cases.js';

const DRIVER = fileURLToPath(new URL('../fixtures/node-repl-driver.cjs', import.meta.url));
const README = fileURLToPath(new URL('../../README.md', import.meta.url));

interface Observed {
  /** The result's inspected form, or `throws <type>`. */
  outcome: string;
  console: string;
}

/**
 * Stack lines name the cell differently (REPL12 / Cell In[12]) and Node's REPL shows its own
 * frames below the cell's: compare the cell's frames only.
 */
function normalize(text: string): string {
  return text
    .split('\n')
    .filter((line) => !/^\s+at /.test(line) || /REPL\d+|Cell In\[\d+\]/.test(line))
    .join('\n')
    .replace(/REPL\d+|Cell In\[\d+\]/g, '<cell>');
}

/** The type of what an `Uncaught ...` line (or the inspected error after `Uncaught:`) shows. */
function thrownType(lines: string[], at: number): string {
  const line = lines[at] as string;
  const next = line === 'Uncaught:' ? (lines[at + 1] ?? '') : line.slice('Uncaught '.length);
  const named = /^\[?([A-Za-z_$][\w$]*)(?::| \[|\]| \{|$)/.exec(next);
  return named && /Error$|^Error|Exception$/.test(named[1] as string) ? (named[1] as string) : 'Uncaught';
}

/** What Node's REPL says of its own (a cell has only its output for it). */
const REPL_NOTICE = /^Expression assignment to _(?:error)? now disabled\.\n/;

function fromRepl(replText: string, consoleText: string): Observed {
  let text = replText.replace(/^(?:\.\.\. )+/gm, '').replace(/\n$/, '');
  const notice = REPL_NOTICE.exec(text);
  if (notice) {
    consoleText = notice[0] + consoleText;
    text = text.slice(notice[0].length);
  }
  const lines = text.split('\n');
  const uncaught = lines.findIndex((line) => line.startsWith('Uncaught'));
  const outcome = uncaught !== -1 ? `throws ${thrownType(lines, uncaught)}` : normalize(text);
  return { outcome, console: normalize(consoleText) };
}

function fromKernel(code: string, r: Awaited<ReturnType<typeof run>>): Observed {
  const text = r.frames
    .filter(
      (f): f is Extract<Frame, { type: 'stdout' | 'stderr' }> => f.type === 'stdout' || f.type === 'stderr',
    )
    .map((f) => f.data)
    .join('');
  if (r.outcome.status === 'error') {
    const ename = r.outcome.error?.ename ?? '';
    return {
      outcome: `throws ${/Error$|^Error|Exception$/.test(ename) ? ename : 'Uncaught'}`,
      console: normalize(text),
    };
  }
  const plain = r.result?.['text/plain'];
  // Node's REPL prints undefined for an undefined result, and nothing for an empty line.
  const shown = typeof plain === 'string' ? plain : code ? 'undefined' : '';
  return { outcome: normalize(shown), console: normalize(text) };
}

/** Runs every input in one Node REPL, in order. */
function runInNodeRepl(inputs: string[], cwd: string): Promise<Observed[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [DRIVER], { cwd, stdio: ['pipe', 'ignore', 'inherit', 'pipe'] });
    let out = '';
    child.stdio[3]?.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
    });
    child.on('error', reject);
    child.on('close', () => {
      const answers = out
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { repl: string; console: string });
      if (answers.length !== inputs.length)
        reject(new Error(`the REPL answered ${answers.length} of ${inputs.length}`));
      else resolve(answers.map((a) => fromRepl(a.repl, a.console)));
    });
    child.stdin?.end(inputs.map((code) => `${JSON.stringify(code)}\n`).join(''));
  });
}

describe("js cells against Node's REPL", () => {
  it("agree on at least 95% of Node's cases; every difference is a README departure", async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'omp-js-differential-'));
    const inputs = REPL_CASES.flatMap((c) => c.inputs);
    const expected = await runInNodeRepl(inputs, cwd);
    const kernel = await startKernel({ language: 'js', cwd });
    const actual: Observed[] = [];
    for (const code of inputs) actual.push(fromKernel(code, await run(kernel, code)));

    let at = 0;
    const report = REPL_CASES.map((testCase) => {
      const steps = testCase.inputs.map((code, i) => ({
        code,
        node: expected[at + i],
        ours: actual[at + i],
      }));
      at += testCase.inputs.length;
      const differing = steps.filter((s) => JSON.stringify(s.node) !== JSON.stringify(s.ours));
      return { testCase, agrees: differing.length === 0, differing };
    });
    const disagreeing = report.filter((r) => !r.agrees);
    const agreement = (report.length - disagreeing.length) / report.length;
    console.log(
      `js cells vs Node's REPL: ${report.length - disagreeing.length} of ${report.length} cases agree (${(agreement * 100).toFixed(1)}%)`,
    );
    for (const r of disagreeing) console.log(`  departure (${r.testCase.departure}): ${r.testCase.name}`);
    // A difference that is not an explained departure, or a departure that no longer differs.
    const unexplained = disagreeing
      .filter((r) => !r.testCase.departure)
      .map((r) => ({ name: r.testCase.name, steps: r.differing }));
    const stale = report.filter((r) => r.agrees && r.testCase.departure).map((r) => r.testCase.name);
    expect(unexplained).toEqual([]);
    expect(stale).toEqual([]);
    expect(agreement).toBeGreaterThanOrEqual(0.95);

    const readme = readFileSync(README, 'utf8');
    const section = readme.split("### Departures from Node's REPL")[1]?.split(/\n#{2,3} /)[0] ?? '';
    const departures = new Set(disagreeing.map((r) => r.testCase.departure as string));
    for (const key of departures) expect(section, `README departure "${key}"`).toContain(`(${key})`);
  }, 180_000);
});
