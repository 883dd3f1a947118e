/**
 * Every run-time speed trick turned off at once (OMP_EVAL_PERF_OFF, src/eval/perfOff.ts), through
 * the real bin/omp-eval.js: the notebook (jit, memory: its own tuning) and the commands (prestart,
 * recipe) still run cells, with the same results (docs/performance.md: only speed differs).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PERF_SWITCHES } from '../../src/eval/perfOff.js';
import { cli } from '../helpers/cli.js';
import { openNotebook, type Screen } from '../helpers/pty.js';

const ALL_OFF = { OMP_EVAL_PERF_OFF: PERF_SWITCHES.join(',') };
const PASTE = (text: string) => `\x1b[200~${text}\x1b[201~`;

const open: Screen[] = [];
afterEach(() => {
  for (const s of open.splice(0)) s.kill();
});

describe('every speed trick off', () => {
  it('the notebook runs Python and JavaScript cells, and a long line of output', async () => {
    const s = openNotebook([], { env: ALL_OFF });
    open.push(s);
    await s.waitFor((t) => t.includes('In [1]:') && t.includes('● idle'), 'the prompt and an idle kernel');
    await s.run('1+1');
    await s.waitFor((t) => t.includes('Out[1]: 2') && t.includes('In [2]:'));
    await s.run('print("a" * 300 + "\\x1b[2Kz")');
    await s.waitFor((t) => /a{50}/.test(t) && t.includes('In [3]:'), 'the long line');
    s.write(PASTE('%%js\n[process.env.OMP_EVAL_PERF_OFF.includes("pump-batch"), 6 * 7]\n'));
    await s.waitFor((t) => t.includes('6 * 7]'), 'the paste in the editor');
    s.write('\r');
    await s.waitFor((t) => t.includes('[ true, 42 ]'), 'the js result');
  });

  it('`run` and `tool` run their cells, twice (where the second call would use the recipe)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'omp-perf-off-'));
    const script = join(dir, 'cell.py');
    writeFileSync(script, 'print(sum(range(10)))\n');
    for (let call = 0; call < 2; call++) {
      const ran = await cli(['run', script], { env: ALL_OFF, cwd: dir });
      expect(ran.stdout.trim()).toBe('45');
      expect(ran.code).toBe(0);
      const tool = await cli(['tool'], {
        env: ALL_OFF,
        cwd: dir,
        input: JSON.stringify({ cells: [{ language: 'py', code: '6 * 7' }] }),
      });
      expect(JSON.parse(tool.stdout).cells[0]).toMatchObject({ status: 'ok', text: '42\n' });
    }
  });
});
