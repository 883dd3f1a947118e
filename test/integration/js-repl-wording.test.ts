/**
 * What a js cell says of an error, word for word against Node's own REPL (issue 43 item 7), where
 * js-differential compares only the error's type: a SyntaxError's message and where its caret
 * points (also in a cell with top-level `await`, where Node's REPL reports acorn's message for
 * the wrapped cell), and the line a promise rejected and not handled, or a callback's error,
 * prints (`Uncaught 42`, as Node's REPL prints it). Both sides run the same inputs in one
 * session (test/fixtures/node-repl-driver.cjs, waiting a moment after each prompt).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { run, startKernel } from '../helpers/kernel.js';

const DRIVER = fileURLToPath(new URL('../fixtures/node-repl-driver.cjs', import.meta.url));
const SETTLE_MS = 150;

/** Cells whose syntax error Node's REPL words and places as the comparison shows. */
const SYNTAX_ERRORS = [
  'let y = ;',
  'x y',
  'const {a} = 1 1',
  '1 = 2',
  'label: label: 1',
  'let let = 1',
  'class { }',
  '@',
  '"unterminated',
  'return 1',
  'await x y',
  'await 1; let z = ;',
  'const aw1 = await 1; aw1 aw1',
  'for await (const x of []) x y',
  'let aw2 = await 1; const aw2 = 2',
  'await Promise..resolve()',
  'await 1; return 2',
  'await 1\nlet q1 = 1; let q1 = 2',
];

/** Cells that leave an error no cell catches: what the REPL prints of it. */
const UNCAUGHT = [
  'Promise.reject(42)',
  'Promise.reject()',
  'Promise.reject("no")',
  'Promise.reject({ code: 1 })',
  'Promise.reject(new TypeError("rejected"))',
  'setTimeout(() => { throw 6 }, 1); await new Promise((r) => setTimeout(r, 50))',
  'setTimeout(() => { throw new RangeError("late") }, 1); await new Promise((r) => setTimeout(r, 50))',
];

interface Answer {
  repl: string;
  console: string;
}

function runInNodeRepl(inputs: string[], cwd: string): Promise<Answer[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [DRIVER], {
      cwd,
      stdio: ['pipe', 'ignore', 'inherit', 'pipe'],
      env: { ...process.env, OMP_REPL_SETTLE_MS: String(SETTLE_MS) },
    });
    let out = '';
    child.stdio[3]?.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
    });
    child.on('error', reject);
    child.on('close', () => {
      const answers = out
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Answer);
      if (answers.length !== inputs.length)
        reject(new Error(`the REPL answered ${answers.length} of ${inputs.length}`));
      else resolve(answers);
    });
    child.stdin?.end(inputs.map((code) => `${JSON.stringify(code)}\n`).join(''));
  });
}

/**
 * A SyntaxError as Node's REPL shows it: `line\ncaret\n\nUncaught SyntaxError: message` (or
 * `Uncaught:\nSyntaxError: message`), or after an `await`, `Uncaught SyntaxError:
 * \nline\ncaret\n\nmessage`. The message, and the caret's line.
 */
function replSyntaxError(text: string): string {
  const lines = text.replace(/^(?:\.\.\. )+/gm, '').split('\n');
  let at = lines.findIndex((line) => line.startsWith('Uncaught SyntaxError:'));
  let message = at === -1 ? '' : (lines[at] as string).slice('Uncaught SyntaxError:'.length).trim();
  if (at === -1) {
    at = lines.findIndex((line, i) => line === 'Uncaught:' && lines[i + 1]?.startsWith('SyntaxError: '));
    if (at === -1) return `no SyntaxError: ${text}`;
    message = (lines[at + 1] as string).slice('SyntaxError: '.length);
  } else if (message === '') return `${lines[at + 4]}\n${lines[at + 2]}`;
  return `${message}\n${lines[at - 1] === '' ? lines[at - 2] : ''}`;
}

/** The first line Node's REPL printed that says `Uncaught`. */
const uncaughtLine = (text: string) =>
  text.split('\n').find((line) => line.startsWith('Uncaught')) ?? `none in ${text}`;

describe("js cells word errors as Node's REPL does", () => {
  it('syntax errors: the message and where the caret points', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'omp-js-wording-'));
    const node = await runInNodeRepl(SYNTAX_ERRORS, cwd);
    const kernel = await startKernel({ language: 'js', cwd });
    const differing: { code: string; node: string; ours: string }[] = [];
    for (const [i, code] of SYNTAX_ERRORS.entries()) {
      const r = await run(kernel, code);
      const error = r.outcome.error;
      const traceback = error?.traceback ?? [];
      // (The kernel's layout: `Cell In[n]:line`, the line, the caret, '', `SyntaxError: message`.)
      const caret = /^(?:Cell In\[\d+\]|<omp-eval>):\d+$/.test(traceback[0] ?? '') ? traceback[2] : '';
      const ours =
        error?.ename === 'SyntaxError' ? `${error.evalue}\n${caret}` : `no SyntaxError: ${error?.ename}`;
      const theirs = replSyntaxError((node[i] as Answer).repl);
      if (ours !== theirs) differing.push({ code, node: theirs, ours });
    }
    expect(differing).toEqual([]);
  }, 120_000);

  it('an error no cell caught: `Uncaught …` without "(in promise)"', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'omp-js-wording-'));
    const node = await runInNodeRepl(UNCAUGHT, cwd);
    const kernel = await startKernel({ language: 'js', cwd });
    const differing: { code: string; node: string; ours: string }[] = [];
    for (const [i, code] of UNCAUGHT.entries()) {
      const r = await run(kernel, code);
      const ours = uncaughtLine(r.stderr);
      const theirs = uncaughtLine(`${(node[i] as Answer).repl}\n${(node[i] as Answer).console}`);
      if (ours !== theirs) differing.push({ code, node: theirs, ours });
    }
    expect(differing).toEqual([]);
  }, 120_000);
});
