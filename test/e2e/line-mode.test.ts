/**
 * The line mode (piped input) and `run` with what only a notebook can do: the kernel decides
 * where a cell ends, set_next_input is refused with a short notice, clear_output erases nothing
 * that is not a terminal.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NEXT_INPUT_NOTICE } from '../../src/modes/output.js';
import { cli } from '../helpers/cli.js';

describe('the line mode and run, beside the notebook', () => {
  it('the kernel says where a cell ends: `)(` runs at once, as in IPython', async () => {
    const r = await cli([], { input: ')(\nprint("next")\nfor i in range(2):\n    print("row", i)\n\n' });
    expect(r.stderr).toContain('SyntaxError');
    expect(r.stdout).toBe('next\nrow 0\nrow 1\n');
  });

  it('set_next_input: a short notice; clear_output: nothing to erase in a pipe', async () => {
    const code = 'get_ipython().set_next_input("x = 1")\nprint("a")\nclear_output()\nprint("b")\n';
    const piped = await cli([], { input: code });
    expect(piped.stdout).toBe('a\nb\n');
    expect(piped.stderr).toContain(NEXT_INPUT_NOTICE);
    const file = join(mkdtempSync(join(tmpdir(), 'omp-next-')), 'script.py');
    writeFileSync(file, code);
    const run = await cli(['run', file]);
    expect(run).toMatchObject({ code: 0, stdout: 'a\nb\n' });
    expect(run.stderr).toContain(NEXT_INPUT_NOTICE);
  });
});
