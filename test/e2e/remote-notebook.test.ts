/**
 * The notebook with `--jupyter URL`: the real CLI in a pseudo-terminal, its cells run by a kernel
 * on a real Jupyter server.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.js';
import { type JupyterServer, runningKernels, SYSTEM_PYTHON, startJupyterServer } from '../helpers/jupyter.js';
import { deadlineIn } from '../helpers/kernel.js';
import { openNotebook, type Screen } from '../helpers/pty.js';
import { cellStatus, lineStarting } from '../helpers/screen.js';

let server: JupyterServer;
const open: Screen[] = [];

beforeAll(async () => {
  server = await startJupyterServer();
});
afterEach(async () => {
  // Each test starts with the server as the last one left it: a notebook ends before the next.
  await Promise.all(
    open.splice(0).map((s) => {
      s.kill();
      return s.exited;
    }),
  );
  // A test that failed may leave a kernel behind (one still starting when its notebook was
  // killed): the next test starts with none, so what it counts is its own.
  for (const id of await runningKernels(server)) await server.rest('DELETE', `api/kernels/${id}`);
});
afterAll(async () => {
  await server?.stop();
});

/** The version of the Python the server's kernels run: kernel_info reports it, not the local one. */
const PYTHON_VERSION = execFileSync(SYSTEM_PYTHON, [
  '-c',
  'import platform; print(platform.python_version())',
])
  .toString()
  .trim();
const remote = (...more: string[]) => ['--jupyter', server.url, '--token', server.token, ...more];
const PASTE = (text: string) => `\x1b[200~${text}\x1b[201~`;

async function start(args: string[]): Promise<Screen> {
  const s = openNotebook(args, { columns: 110 });
  open.push(s);
  await s.waitFor(
    (t) => t.includes('In [1]:') && t.includes('● idle'),
    'the prompt and an idle remote kernel',
  );
  return s;
}

/** The first 8 hex digits of the kernel id the status line names. */
function kernelIdOn(screen: string): string {
  const id = /python3 ([0-9a-f]{8}) on /.exec(screen)?.[1];
  if (!id) throw new Error(`no kernel id on the status line:\n${screen}`);
  return id;
}

/**
 * The kernels left on the server once the ones it was told to shut down have ended: it ends them
 * in its own time (up to its shutdown wait, and beyond on a loaded machine).
 */
async function kernelsAfterShutdown(): Promise<string[]> {
  let left = await runningKernels(server);
  for (const until = deadlineIn(60_000); left.length && Date.now() < until; ) {
    await new Promise((r) => setTimeout(r, 100));
    left = await runningKernels(server);
  }
  return left;
}

/** The screen with its rows joined: a message wider than the terminal reads whole. */
const unwrapped = (screen: string) => screen.replace(/\n/g, '');

/** Runs one line and waits for the prompt of the cell after it. */
async function runLine(s: Screen, code: string, next: number) {
  await s.run(code);
  await s.waitFor((t) => t.includes(`In [${next}]:`), `In [${next}]`);
}

describe('the notebook on a remote kernel', () => {
  it('names the server and kernel; runs 1+1, a pasted script, %who and a matplotlib figure', async () => {
    const s = await start(remote('--images', 'blocks'));
    expect(s.text()).toMatch(new RegExp(`● idle │ python3 [0-9a-f]{8} on 127\\.0\\.0\\.1:${server.port} │`));
    await s.run('1+1');
    await s.waitFor((t) => t.includes('Out[1]: 2') && t.includes('In [2]:'));
    s.write(PASTE('# %% one\na = 1\n# %% two\nb = a + 1\n# %% three\nprint("sum", a + b)\n'));
    await s.waitFor((t) => t.includes('# %% three'), 'the paste in the editor');
    s.write('\r');
    const screen = await s.waitFor((t) => t.includes('sum 3') && t.includes('In [5]:'));
    expect(screen).toContain('✓ [4] three ok');
    await s.run('%who');
    await s.waitFor((t) => /a\s+b\s*$/m.test(t) && t.includes('In [6]:'), 'the names');
    await s.run('import matplotlib.pyplot as plt; plt.plot([1, 3, 2]); plt.show()');
    await s.waitFor((t) => /[▀▄█]{20}/.test(t) && t.includes('In [7]:'), 'the figure in half blocks');
    // /save writes the kernel's own kernelspec and kernel_info's language_info.
    const file = join(mkdtempSync(join(tmpdir(), 'omp-remote-')), 'remote.ipynb');
    await s.run(`/save ${file}`);
    await s.waitFor((t) => t.includes('Saved the session as a notebook'), 'the notebook saved');
    const nb = JSON.parse(readFileSync(file, 'utf8'));
    expect(nb.metadata.kernelspec).toMatchObject({ name: 'python3', language: 'python' });
    expect(nb.metadata.language_info).toMatchObject({ name: 'python', version: PYTHON_VERSION });
  });

  it('answers input(), stops a loop with Ctrl-C keeping the state, restarts, and shuts its kernel down on exit', async () => {
    const s = await start(remote());
    const id = kernelIdOn(s.text());
    await s.run('name = input("who? ")');
    await s.waitFor((t) => t.split('\n').some((line) => line.startsWith('who?')), 'the input line');
    await s.run('Ada');
    await s.waitFor((t) => t.includes('In [2]:'));
    await s.run('print("looping", flush=True); exec("while True: pass")');
    await s.waitFor((t) => /^looping$/m.test(t) && t.includes('running'), 'the loop');
    s.write('\x03');
    await s.waitFor(
      (t) => t.includes('KeyboardInterrupt') && t.includes('⊘ [2] cancelled') && t.includes('In [3]:'),
    );
    // (The next prompt is drawn when the cell is queued: wait for its result.)
    await s.run('name.upper()');
    await s.waitFor((t) => t.includes("Out[3]: 'ADA'"), 'the state kept');
    await s.run('/restart');
    // (a new kernel on the server: under a loaded machine its start takes the longest)
    await s.waitFor((t) => t.includes('Kernel restarted') && t.includes('● idle'), 'the new kernel', 150_000);
    await s.run('name');
    await s.waitFor((t) => t.includes("NameError: name 'name' is not defined"));
    s.write('\x04');
    expect((await s.ended()).exitCode).toBe(0);
    const left = await kernelsAfterShutdown();
    expect(left.some((k) => k.startsWith(id))).toBe(false);
    expect(left).toEqual([]);
  }, 300_000);

  it('a hangup shuts its kernel down on the server before the notebook exits', async () => {
    const s = await start(remote());
    const id = kernelIdOn(s.text());
    s.kill(); // SIGHUP, as a closed terminal sends
    expect((await s.ended()).exitCode).toBe(129);
    expect((await kernelsAfterShutdown()).some((k) => k.startsWith(id))).toBe(false);
  });

  it('an interrupt the kernel ignores restarts it through the server and says state was lost', async () => {
    const s = await start(remote());
    const id = kernelIdOn(s.text());
    await runLine(s, 'lost = 1', 2);
    await s.run(
      'import signal; signal.signal(signal.SIGINT, signal.SIG_IGN); print("deaf", flush=True); exec("while True: pass")',
    );
    await s.waitFor((t) => /^deaf$/m.test(t) && t.includes('running'), 'the deaf cell');
    s.write('\x03');
    // The message is wider than the terminal: read it with the wrapping undone.
    await s.waitFor(
      (t) =>
        unwrapped(t).includes('restarted through the Jupyter server: its state was lost') &&
        t.includes('In [3]:'),
      'the restart and the next prompt',
    );
    // One message for the event: not also "the kernel was killed".
    expect(s.text()).not.toContain('the kernel was killed');
    await s.run('"lost" in globals()');
    // (the status line is drawn again after the cell: wait for it, not only for the cell)
    let after = '';
    await s.waitFor((t) => {
      if (t.includes('Out[3]: False') && /python3 [0-9a-f]{8} on /.test(t)) after = t;
      return after !== '';
    }, 'the lost name and the status line');
    // Restarted on the server, not replaced by a new kernel: the same id, and no other kernel.
    expect(kernelIdOn(after)).toBe(id);
    expect(await runningKernels(server)).toEqual([expect.stringMatching(new RegExp(`^${id}`))]);
  });

  it('applies --timeout to remote cells and keeps the state', async () => {
    const s = await start(remote('--timeout', '1'));
    await runLine(s, 'kept = 7', 2);
    await s.run('while True: pass');
    const loop = await s.waitFor((t) => cellStatus(t, 2) !== undefined, 'the loop');
    expect(cellStatus(loop, 2)).toMatch(/^⏱ \[2\] timed out/);
    await s.run('kept');
    const kept = await s.waitFor((t) => cellStatus(t, 3) !== undefined, 'the next cell');
    expect(lineStarting(kept, 'Out[3]:')).toBe('Out[3]: 7');
  });

  it('attaches with --kernel-id to a kernel started through the REST API and sees a name defined there', async () => {
    const { json } = await server.rest('POST', 'api/kernels', { name: 'python3' });
    const id = (json as { id: string }).id;
    const defined = await cli([...remote('--kernel-id', id), 'tool'], {
      input: JSON.stringify({ cells: [{ language: 'py', code: 'earlier = "from another client"' }] }),
    });
    expect(JSON.parse(defined.stdout).isError).toBe(false);
    const s = await start(remote('--kernel-id', id));
    expect(s.text()).toContain(`python3 ${id.slice(0, 8)} on 127.0.0.1:${server.port}`);
    await s.run('earlier');
    await s.waitFor((t) => t.includes("Out[1]: 'from another client'"));
    s.write('\x04');
    await s.ended();
    expect(await runningKernels(server)).toContain(id); // not ours to shut down
    await server.rest('DELETE', `api/kernels/${id}`);
  });

  it('a wrong token: the notebook says why and stays usable', async () => {
    const s = openNotebook(['--jupyter', server.url, '--token', 'wrong'], { columns: 110 });
    open.push(s);
    const screen = await s.waitFor(
      (t) => t.includes('refused the token (HTTP 403)') && t.includes('● dead'),
      'the reason',
    );
    // The status line names the server the cells would run on, not a local Python.
    expect(screen).toContain(`● dead │ Jupyter kernel on 127.0.0.1:${server.port} │`);
    expect(screen).not.toMatch(/Python/);
    await s.run('1+1');
    // The cell never ran on a kernel, so it has no execution count: `[ ]`, with the reason under it.
    const failed = await s.waitFor(
      (t) => t.includes('✗ [ ] error') && t.includes('In [1]:'),
      'the cell failing with the reason',
    );
    const cell = unwrapped(failed.slice(failed.indexOf('✗ [ ] error')));
    expect(cell).toContain('kernel could not be started');
    expect(cell).toContain('refused the token (HTTP 403)');
    expect(cell).toContain("give the server's token with --token or JUPYTER_TOKEN");
    // Still usable: the notebook's own commands answer, and each cell tries the server again.
    await s.run('/help');
    // (The help is taller than the screen: its first line is in the scroll-back.)
    await s.waitFor(() => s.all().includes('Commands (type them at the prompt):'), 'the help');
    await s.run('2+2');
    await s.waitFor(() => (s.all().match(/✗ \[ \] error/g) ?? []).length >= 2, 'the second cell failing too');
    s.write('\x04');
    expect((await s.ended()).exitCode).toBe(0);
  });
});
