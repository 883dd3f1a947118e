import { afterEach, describe, expect, it } from 'vitest';
import { groupAlive, pidAlive } from '../helpers/kernel.js';
import { openNotebook, type Screen } from '../helpers/pty.js';
import { cellStatus, lineStarting } from '../helpers/screen.js';

const open: Screen[] = [];
afterEach(() => {
  for (const s of open.splice(0)) s.kill();
});

async function start(args: string[] = [], opts = {}) {
  const s = openNotebook(args, opts);
  open.push(s);
  await s.waitFor((t) => t.includes('In [1]:') && t.includes('● idle'), 'the prompt and an idle kernel');
  return s;
}

const PASTE = (text: string) => `\x1b[200~${text}\x1b[201~`;

describe('the notebook in a terminal', () => {
  it('starts, runs 1+1 and shows 2', async () => {
    const s = await start();
    // (a person's notebook: the kernel has the whole environment, and the status line says so)
    expect(s.text()).toMatch(/● idle │ Python 3\.\d+\.\d+ │ .+ │ session │ env whole │ \[0\]/);
    await s.run('1+1');
    await s.waitFor((t) => t.includes('Out[1]: 2') && t.includes('In [2]:'));
  });

  it('Ctrl-Z suspends the notebook to its shell and `fg` brings it back, state and all', async () => {
    const s = openNotebook([], { inShell: true });
    open.push(s);
    await s.waitFor((t) => t.includes('In [1]:') && t.includes('● idle'), 'the prompt and an idle kernel');
    await s.run('x = 41');
    await s.waitFor((t) => t.includes('In [2]:'));
    s.write('\x1a');
    // The shell has the terminal: its job line, its prompt, and no live frame of the notebook.
    // (The job's line names the command, which a long path wraps.)
    const shell = await s.waitFor((t) => /\] *\+ *Stopped/.test(t) && /\$ ?$/.test(t), 'the stopped job');
    expect(shell).not.toContain('● idle');
    s.write('fg\r');
    await s.waitFor((t) => t.includes('In [2]:') && t.includes('● idle'), 'the notebook again');
    await s.run('x + 1');
    await s.waitFor((t) => t.includes('Out[2]: 42') && t.includes('In [3]:'), 'its kernel, state kept');
  });

  it('runs a pasted three-cell script as three cells', async () => {
    const s = await start();
    s.write(
      PASTE('# %% one\na = 1\nprint("first", a)\n# %% two\nb = a + 1\n# %% three\nprint("sum", a + b)\n'),
    );
    await s.waitFor((t) => t.includes('# %% three'), 'the paste in the editor');
    s.write('\r');
    const screen = await s.waitFor((t) => t.includes('sum 3') && t.includes('In [4]:'));
    expect(screen).toContain('✓ [1] one ok');
    expect(screen).toContain('✓ [2] two ok');
    expect(screen).toContain('✓ [3] three ok');
  });

  it('runs a %%js cell in a JavaScript kernel beside the Python one', async () => {
    const s = await start();
    await s.run('shared = "py"');
    await s.waitFor((t) => t.includes('In [2]:'));
    // A %%js body ends with an empty line (pasted here).
    s.write(PASTE('%%js\nconst shared = "js";\n[shared, 6 * 7]\n'));
    await s.waitFor((t) => t.includes('[shared, 6 * 7]'), 'the paste in the editor');
    s.write('\r');
    const js = await s.waitFor((t) => cellStatus(t, 2) !== undefined, 'the js cell');
    expect(lineStarting(js, 'Out[2]:'), 'the js result').toBe("Out[2]: [ 'js', 42 ]");
    await s.run('shared');
    const py = await s.waitFor((t) => cellStatus(t, 3) !== undefined, 'the next cell');
    expect(lineStarting(py, 'Out[3]:'), 'the Python state, untouched').toBe("Out[3]: 'py'");
  });

  it('--lang js makes JavaScript the default; Ctrl-C stops a js loop and keeps the state', async () => {
    const s = openNotebook(['--lang', 'js']);
    open.push(s);
    await s.waitFor(
      (t) => t.includes('In [1]:') && /● idle │ Node \d+\.\d+/.test(t),
      'a JavaScript notebook',
    );
    await s.run('const kept = [1, 2].map((x) => x * 10)');
    await s.waitFor((t) => t.includes('In [2]:'));
    await s.run('while (true) {}');
    await s.waitFor((t) => t.includes('running'));
    s.write('\x03');
    const stopped = await s.waitFor((t) => cellStatus(t, 2) !== undefined, 'the loop stopped');
    expect(cellStatus(stopped, 2)).toMatch(/^⊘ \[2\] cancelled/);
    expect(lineStarting(stopped, 'Interrupted:')).toBe('Interrupted: the cell was interrupted');
    await s.run('kept');
    const kept = await s.waitFor((t) => cellStatus(t, 3) !== undefined, 'the next cell');
    expect(lineStarting(kept, 'Out[3]:'), 'the state kept').toBe('Out[3]: [ 10, 20 ]');
  });

  it('lists names with %who and reads the environment with %env', async () => {
    const s = await start();
    await s.run('alpha = 1; beta = "b"');
    await s.waitFor((t) => t.includes('In [2]:'));
    await s.run('%who');
    const who = await s.waitFor((t) => cellStatus(t, 2) !== undefined, '%who');
    expect(lineStarting(who, 'alpha')).toMatch(/^alpha\s+beta$/);
    await s.run('%env OMP_E2E=yes');
    const set = await s.waitFor((t) => cellStatus(t, 3) !== undefined, '%env, setting');
    expect(lineStarting(set, 'env:')).toBe('env: OMP_E2E=yes');
    await s.run('%env OMP_E2E');
    const read = await s.waitFor((t) => cellStatus(t, 4) !== undefined, '%env, reading');
    expect(lineStarting(read, 'Out[4]:')).toBe("Out[4]: 'yes'");
  });

  it('Ctrl-C stops an endless loop; the prompt comes back and the state is kept', async () => {
    const s = await start();
    await s.run('kept = 42');
    await s.waitFor((t) => t.includes('In [2]:'));
    await s.run('print("looping", flush=True); exec("while True: pass")');
    await s.waitFor((t) => /^looping$/m.test(t) && t.includes('running'), 'the loop');
    s.write('\x03');
    const stopped = await s.waitFor((t) => cellStatus(t, 2) !== undefined, 'the loop stopped');
    expect(cellStatus(stopped, 2)).toMatch(/^⊘ \[2\] cancelled/);
    expect(lineStarting(stopped, 'KeyboardInterrupt')).toBe('KeyboardInterrupt');
    await s.run('kept');
    const kept = await s.waitFor((t) => cellStatus(t, 3) !== undefined, 'the next cell');
    expect(lineStarting(kept, 'Out[3]:')).toBe('Out[3]: 42');
  });

  it('Ctrl-C on a cell that ignores SIGINT ends in a killed kernel and a fresh one', async () => {
    const s = await start();
    await s.run('lost = 1');
    await s.waitFor((t) => t.includes('In [2]:'));
    // One line that ignores SIGINT and then sleeps forever (not spinning: waiting for the kill
    // costs the other tests no CPU).
    await s.run(
      'import time, signal; signal.signal(signal.SIGINT, signal.SIG_IGN); print("deaf", flush=True); exec("while True: time.sleep(0.05)")',
    );
    await s.waitFor((t) => /^deaf$/m.test(t) && t.includes('running'), 'the deaf cell');
    s.write('\x03');
    const killed = await s.waitFor((t) => cellStatus(t, 2) !== undefined, 'the kill', 60_000);
    expect(cellStatus(killed, 2)).toMatch(/^☠ \[2\] kernel killed/);
    // (the notice, its rows joined again)
    expect(killed.replace(/\s*\n/g, ' ')).toContain(
      'The cell did not stop within 5 s: the kernel was killed and its state is lost. A fresh kernel is starting.',
    );
    await s.run('"lost" in globals()');
    const fresh = await s.waitFor((t) => cellStatus(t, 3) !== undefined, 'the next cell');
    expect(lineStarting(fresh, 'Out[3]:')).toBe('Out[3]: False');
  });

  it('shows an image cell as half blocks with --images blocks', async () => {
    const s = await start(['--images', 'blocks']);
    // A 4×4 red PNG, built with the standard library.
    await s.run(
      'import zlib, struct, base64; raw = b"".join(b"\\x00" + b"\\xff\\x00\\x00" * 4 for _ in range(4)); ' +
        'chunk = lambda t, d: struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d)); ' +
        'png = b"\\x89PNG\\r\\n\\x1a\\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 4, 4, 8, 2, 0, 0, 0)) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""); ' +
        'display({"image/png": base64.b64encode(png).decode()}, raw=True)',
    );
    const screen = await s.waitFor((t) => cellStatus(t, 1) !== undefined, 'the cell');
    // Four by four pixels: two rows of four half blocks, under the code.
    const rows = screen.split('\n').filter((line) => /[▀▄█]/.test(line));
    expect(
      rows.map((row) => row.trimEnd()),
      'the half blocks',
    ).toEqual(['▄▄▄▄', '▄▄▄▄']);
  });

  it('answers input() typed at the prompt', async () => {
    const s = await start();
    await s.run('name = input("who? ")');
    // The input line itself (the code line above also contains "who?").
    await s.waitFor((t) => t.split('\n').some((line) => line.startsWith('who?')));
    await s.run('Ada');
    const answered = await s.waitFor((t) => cellStatus(t, 1) !== undefined, 'the cell');
    expect(lineStarting(answered, 'who?')).toBe('who? Ada');
    await s.run('name.upper()');
    const upper = await s.waitFor((t) => cellStatus(t, 2) !== undefined, 'the next cell');
    expect(lineStarting(upper, 'Out[2]:')).toBe("Out[2]: 'ADA'");
  });

  it('lays out again on resize', async () => {
    const s = await start([], { columns: 100, rows: 30 });
    await s.run('print("before resize")');
    await s.waitFor((t) => t.includes('In [2]:'));
    s.resize(70, 20);
    await s.run('print("after resize")');
    const screen = await s.waitFor((t) => t.includes('after resize') && t.includes('In [3]:'));
    expect(screen.split('\n').every((line) => line.length <= 70)).toBe(true);
  });

  it('/exit while a cell runs quits at once and leaves no kernel behind', async () => {
    const s = await start();
    await s.run('import os, time; print(os.getpid(), flush=True); time.sleep(1000)');
    const screen = await s.waitFor((t) => /^\d+$/m.test(t) && t.includes('running'));
    const kernelPid = Number(/^(\d+)$/m.exec(screen)?.[1]);
    await s.run('/exit');
    const { exitCode } = await s.ended();
    expect(exitCode).toBe(0);
    expect(pidAlive(kernelPid)).toBe(false);
  });

  it('applies --timeout to cells', async () => {
    const s = await start(['--timeout', '1']);
    await s.run('import time; time.sleep(5)');
    const screen = await s.waitFor((t) => cellStatus(t, 1) !== undefined, 'the cell');
    expect(cellStatus(screen, 1)).toMatch(/^⏱ \[1\] timed out/);
    expect(lineStarting(screen, 'Timed out')).toBe(
      'Timed out after 1 s: the cell was interrupted; the kernel keeps its state.',
    );
  });

  it('exits on Ctrl-D and leaves no kernel behind', async () => {
    const s = await start();
    await s.run('import os; os.getpid()');
    const screen = await s.waitFor((t) => /Out\[1\]: \d+/.test(t));
    const kernelPid = Number(/Out\[1\]: (\d+)/.exec(screen)?.[1]);
    expect(pidAlive(kernelPid)).toBe(true);
    s.write('\x04');
    const { exitCode } = await s.ended();
    expect(exitCode).toBe(0);
    expect(pidAlive(kernelPid)).toBe(false);
    expect(groupAlive(kernelPid)).toBe(false);
  });
});
