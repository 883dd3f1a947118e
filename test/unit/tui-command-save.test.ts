import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isCommandLine } from '../../src/tui/commands/index.js';
import { saveCommand, saveOverCommand } from '../../src/tui/commands/saveCommand.js';
import { textOutput } from '../../src/tui/state/output.js';
import type { CellView } from '../../src/tui/state/reducer.js';
import { commandContext } from '../helpers/commandContext.js';

const cell: CellView = {
  id: 1,
  code: 'x = 1',
  status: 'ok',
  executionCount: 1,
  output: textOutput('stdout', ''),
};

describe('/save', () => {
  it('writes a script or a notebook by extension, and says where', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'omp-save-'));
    const { ctx, did } = commandContext(join(dir, 's.py'), [cell]);
    await saveCommand.run(ctx);
    expect(readFileSync(join(dir, 's.py'), 'utf8')).toBe('# %%\nx = 1\n');
    ctx.args = join(dir, 's.ipynb');
    await saveCommand.run(ctx);
    expect(JSON.parse(readFileSync(join(dir, 's.ipynb'), 'utf8')).nbformat).toBe(4);
    expect(did.printed).toEqual([
      `Saved the session as a script: ${join(dir, 's.py')}`,
      `Saved the session as a notebook: ${join(dir, 's.ipynb')}`,
    ]);
  });

  it('reads ~/ as the home directory, as a shell does', async () => {
    const home = mkdtempSync(join(tmpdir(), 'omp-save-home-'));
    const was = process.env.HOME;
    process.env.HOME = home;
    try {
      const { ctx, did } = commandContext('~/tilde.py', [cell]);
      ctx.cwd = () => tmpdir();
      await saveCommand.run(ctx);
      expect(readFileSync(join(home, 'tilde.py'), 'utf8')).toBe('# %%\nx = 1\n');
      expect(did.printed).toEqual([`Saved the session as a script: ${join(home, 'tilde.py')}`]);
    } finally {
      process.env.HOME = was;
    }
  });

  it("writes a relative name under the kernel's working directory, which %cd moved", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'omp-save-cd-'));
    const { ctx, did } = commandContext('moved.py', [cell]);
    ctx.cwd = () => dir;
    await saveCommand.run(ctx);
    expect(readFileSync(join(dir, 'moved.py'), 'utf8')).toBe('# %%\nx = 1\n');
    expect(did.printed).toEqual([`Saved the session as a script: ${join(dir, 'moved.py')}`]);
  });

  it('never replaces an existing file unasked: it says how (issue 14 item 20); /save! replaces it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'omp-save-'));
    const file = join(dir, 'keep.py');
    writeFileSync(file, 'precious\n');
    const { ctx, did } = commandContext(file, [cell]);
    await saveCommand.run(ctx);
    expect(readFileSync(file, 'utf8')).toBe('precious\n');
    expect(did.printed).toEqual([`${file} exists and was left as it is; /save! ${file} replaces it`]);
    expect(isCommandLine(`/save! ${file}`)).toBe(true);
    await saveOverCommand.run(ctx);
    expect(readFileSync(file, 'utf8')).toBe('# %%\nx = 1\n');
    expect(did.printed[1]).toBe(`Saved the session as a script: ${file}`);
  });

  it('answers a missing or unwritable file with a message', async () => {
    const { ctx, did } = commandContext('', [cell]);
    await saveCommand.run(ctx);
    ctx.args = '/nonexistent-dir/x.py';
    await saveCommand.run(ctx);
    expect(did.printed[0]).toBe('usage: /save FILE.py or /save FILE.ipynb');
    expect(did.printed[1]).toBe(
      'Could not save /nonexistent-dir/x.py: the folder /nonexistent-dir does not exist',
    );
  });

  it('takes a name in quotes as a shell does: "my nb.ipynb" is a notebook of that name', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'omp-save-'));
    const { ctx, did } = commandContext(`"${join(dir, 'my nb.ipynb')}"`, [cell]);
    await saveCommand.run(ctx);
    expect(did.printed).toEqual([`Saved the session as a notebook: ${join(dir, 'my nb.ipynb')}`]);
    expect(JSON.parse(readFileSync(join(dir, 'my nb.ipynb'), 'utf8')).nbformat).toBe(4);
  });
});
