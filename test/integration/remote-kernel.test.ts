/**
 * Remote kernels through the executor, against a real Jupyter server and its ipykernel: the same
 * events, results and kernel states as a local kernel's.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OutputEvent, Session } from '../../src/eval/index.js';
import { FOREIGN_INTERRUPT } from '../../src/eval/remote/remoteCell.js';
import { RemoteKernel } from '../../src/eval/remote/remoteKernel.js';
import { makeExecutor } from '../helpers/executor.js';
import { type JupyterServer, runningKernels, startJupyterServer } from '../helpers/jupyter.js';
import { waitFor } from '../helpers/kernel.js';

let server: JupyterServer;

beforeAll(async () => {
  server = await startJupyterServer();
});
afterAll(async () => {
  await server?.stop();
});

const py = (code: string, extra: Record<string, unknown> = {}) => ({
  language: 'py' as const,
  code,
  ...extra,
});

function remoteExecutor(extra: Record<string, unknown> = {}) {
  return makeExecutor({
    settings: { 'jupyter.url': server.url, 'jupyter.token': server.token, ...extra },
    interruptEscalationMs: 3_000,
  });
}

/** Runs one cell, collecting its events; `onEvent` sees each as it comes. */
async function runCell(
  session: Session,
  code: string,
  opts: { onEvent?: (e: OutputEvent) => void; timeout?: number; allowStdin?: boolean } = {},
) {
  const events: OutputEvent[] = [];
  const [result] = await session.run([py(code, opts.timeout ? { timeout: opts.timeout } : {})], {
    ...(opts.allowStdin ? { allowStdin: true } : {}),
    onEvent: (_, event) => {
      events.push(event);
      opts.onEvent?.(event);
    },
  });
  if (!result) throw new Error('no result');
  return { result, events };
}

describe('remote kernel: cells', () => {
  it('runs 1+1 on the server, not locally, and keeps state across cells (%who is the kernel’s own)', async () => {
    const ex = remoteExecutor();
    const s = await ex.session();
    expect(s.python).toBeUndefined(); // no local interpreter was looked for
    const [one, defined, who] = await s.run([py('1+1'), py('alpha = 1\nbeta = "b"'), py('%who')]);
    expect(one?.text).toBe('2\n');
    expect(one?.executionCount).toBe(1);
    expect(defined?.status).toBe('ok');
    expect(who?.text).toMatch(/alpha\s+beta/);
    const kernel = s.kernel;
    expect(kernel?.remote?.server).toBe(`127.0.0.1:${server.port}`);
    expect(kernel?.remote?.kernelName).toBe('python3');
    expect(kernel?.remote?.languageInfo?.name).toBe('python');
    expect(kernel?.remote?.kernelspec?.display_name).toMatch(/Python 3/);
    expect(await runningKernels(server)).toContain(kernel?.remote?.kernelId);
  });

  it('maps streams, display_data, update_display_data, clear_output and execute_result to events', async () => {
    const s = await remoteExecutor().session();
    const code = [
      'import sys',
      'print("out")',
      'print("err", file=sys.stderr)',
      'h = display("first", display_id=True)',
      'h.update("second")',
      'from IPython.display import clear_output',
      'clear_output()',
      '"the result"',
    ].join('\n');
    const { result, events } = await runCell(s, code);
    const kinds = events.map((e) => e.kind);
    expect(kinds[0]).toBe('started');
    expect(events).toContainEqual({ kind: 'stdout', text: 'out\n' });
    expect(events).toContainEqual({ kind: 'stderr', text: 'err\n' });
    const displays = events.filter((e) => e.kind === 'display');
    const first = displays.find((e) => e.kind === 'display' && e.text === "'first'");
    const second = displays.find((e) => e.kind === 'display' && e.text === "'second'");
    expect(first && 'displayId' in first && first.displayId).toBeTruthy();
    expect(second).toMatchObject({ update: true, displayId: (first as { displayId: string }).displayId });
    expect(events).toContainEqual({ kind: 'clear_output' });
    expect(events.at(-1)).toMatchObject({ kind: 'result', text: "'the result'" });
    expect(result.status).toBe('ok');
  });

  it('clear_output(wait=True) clears only when the next output comes', async () => {
    const s = await remoteExecutor().session();
    const code =
      'from IPython.display import clear_output\nprint("a")\nclear_output(wait=True)\nprint("b")\nclear_output(wait=True)';
    const { events } = await runCell(s, code);
    const seen = events
      .filter((e) => e.kind !== 'started')
      .map((e) => (e.kind === 'stdout' ? e.text : e.kind));
    expect(seen).toEqual(['a\n', 'clear_output', 'b\n']);
  });

  it('draws a matplotlib figure as an image', async () => {
    const s = await remoteExecutor().session();
    const { result } = await runCell(
      s,
      'import matplotlib.pyplot as plt\nplt.plot([1, 2, 3], [1, 4, 9])\nplt.show()',
    );
    expect(result.status).toBe('ok');
    expect(result.images[0]?.mime).toBe('image/png');
    expect(result.images[0]?.width).toBeGreaterThan(100);
  });

  it('reports an error with its traceback in colour', async () => {
    const s = await remoteExecutor().session();
    const { result, events } = await runCell(s, 'def f():\n    raise ValueError("bad value")\nf()');
    expect(result.status).toBe('error');
    expect(result.error).toMatchObject({ ename: 'ValueError', evalue: 'bad value' });
    const error = events.find((e) => e.kind === 'error');
    expect(error && 'traceback' in error && error.traceback.join('\n')).toContain('\x1b[');
  });

  it('asks the front end for input() and sends the answer back', async () => {
    const s = await remoteExecutor().session();
    const { result, events } = await runCell(s, 'name = input("who? ")\nprint("hello", name)', {
      allowStdin: true,
      onEvent: (e) => {
        if (e.kind === 'input_request') s.sendInput('ann');
      },
    });
    expect(events).toContainEqual({ kind: 'input_request', prompt: 'who? ', password: false });
    expect(result.text).toContain('hello ann');
  });

  it('completes with complete_request and checks cells with is_complete_request, in UTF-16 offsets', async () => {
    const s = await remoteExecutor().session();
    await s.start();
    const code = 'smile = "😀"; smile.upp';
    const completion = await s.complete(code, code.length);
    expect(completion.matches).toContain('upper');
    expect(code.slice(completion.start, completion.end)).toBe('upp');
    const kernel = s.kernel as unknown as RemoteKernel;
    expect(kernel).toBeInstanceOf(RemoteKernel);
    expect(await kernel.isComplete('def f():')).toEqual({ status: 'incomplete', indent: '    ' });
    expect((await kernel.isComplete('x = 1')).status).toBe('complete');
    expect((await kernel.isComplete('x = )')).status).toBe('invalid');
  });

  it('passes output that threads of earlier cells print to onBackground', async () => {
    const s = await remoteExecutor().session();
    const background: string[] = [];
    s.onBackground((frame) => {
      if (frame.type === 'stdout') background.push(frame.data);
    });
    const flag = join(mkdtempSync(join(tmpdir(), 'omp-remote-')), 'go');
    const code = [
      'import os, threading, time',
      'def later():',
      `    while not os.path.exists(${JSON.stringify(flag)}): time.sleep(0.01)`,
      '    print("late", flush=True)',
      'threading.Thread(target=later).start()',
    ].join('\n');
    const { result } = await runCell(s, code);
    expect(result.text).toBe('');
    writeFileSync(flag, '');
    await waitFor(() => background.join('').includes('late'), 60_000, 'background output');
  });
});

describe('remote kernel: its names', () => {
  it('lists the user names as %whos, a hanging summary skipped, leaving no name, count or history behind', async () => {
    const s = await remoteExecutor().session();
    const code = [
      'import numpy as np',
      'grid = np.zeros((2, 3))',
      'pair = [1, 2]',
      '_private = 1',
      'class Slow:',
      '    def __str__(self):',
      '        import time',
      '        while True: time.sleep(0.01)',
      'slow = Slow()',
    ].join('\n');
    const { result } = await runCell(s, code);
    expect(result.status).toBe('ok');
    const kernel = s.kernelOf('py');
    if (!kernel) throw new Error('no kernel');
    const listed = await kernel.variables(500, 30_000, 300);
    expect(listed.error).toBeUndefined();
    expect(listed.total).toBe(5);
    const by = Object.fromEntries(listed.variables.map((v) => [v.name, v]));
    expect(Object.keys(by)).toEqual(['Slow', 'grid', 'np', 'pair', 'slow']);
    expect(by.grid).toMatchObject({ type: 'ndarray', shape: [2, 3] });
    expect(by.pair).toMatchObject({ type: 'list', summary: 'n=2' });
    expect(by.np?.type).toBe('module');
    expect(by.slow).toMatchObject({ type: 'Slow', skipped: true });
    expect(by.slow?.summary).toMatch(/^<skipped: its summary took longer than 0.3 s>$/);
    // The listing ran silently: the next cell's count follows the last cell's, `_` is untouched,
    // and the listing's own names are nowhere in the user's namespace.
    const { result: after } = await runCell(
      s,
      'sorted(k for k in globals() if "omp" in k or k.startswith("_Json")), len(In) - 1',
    );
    const count = (result.executionCount ?? 0) + 1;
    expect(after.executionCount).toBe(count);
    expect(after.text).toBe(`([], ${count})\n`);
    const limited = await kernel.variables(2, 30_000, 300);
    expect(limited.variables.map((v) => v.name)).toEqual(['Slow', 'grid']);
    expect(limited.total).toBe(5);
  });
});

describe('remote kernel: interrupts, timeouts, restarts', () => {
  it('interrupts an endless loop through the server and keeps the state', async () => {
    const s = await remoteExecutor().session();
    await runCell(s, 'kept = 42');
    // (interrupted once the loop runs: an interrupt that reaches ipykernel before it executes
    // the cell is not the cell's)
    let sent = false;
    const { result } = await runCell(s, 'print("looping", flush=True)\nwhile True: pass', {
      onEvent: (e) => {
        if (!sent && e.kind === 'stdout' && e.text.includes('looping')) {
          sent = true;
          s.interrupt();
        }
      },
    });
    expect(result.status).toBe('cancelled');
    expect(result.error?.ename).toBe('KeyboardInterrupt');
    const { result: after } = await runCell(s, 'kept');
    expect(after.text).toBe('42\n');
  });

  it('a timeout interrupts the cell and the kernel runs on with its state', async () => {
    const s = await remoteExecutor().session();
    await runCell(s, 'kept = 7');
    const { result } = await runCell(s, 'import time\nwhile True: time.sleep(0.01)', { timeout: 1 });
    expect(result.timedOut).toBe(true);
    expect(result.kernelKilled).toBe(false);
    expect((await runCell(s, 'kept')).result.text).toBe('7\n');
  });

  it('an interrupt left unanswered restarts the kernel through the server and says state was lost', async () => {
    const s = await remoteExecutor().session();
    await runCell(s, 'kept = 1');
    const id = s.kernel?.remote?.kernelId;
    const code =
      'import signal, time\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nprint("deaf", flush=True)\nwhile True: time.sleep(0.05)';
    const { result, events } = await runCell(s, code, {
      onEvent: (e) => {
        if (e.kind === 'stdout' && e.text.includes('deaf')) s.interrupt();
      },
    });
    expect(result.kernelKilled).toBe(true);
    expect(result.status).toBe('cancelled');
    expect(result.error?.ename).toBe('KernelRestarted');
    expect(events.find((e) => e.kind === 'error')).toMatchObject({
      evalue: expect.stringContaining('state was lost'),
    });
    // The same kernel on the server, restarted: the name is gone.
    const { result: after } = await runCell(s, 'kept');
    expect(after.error?.ename).toBe('NameError');
    expect(s.kernel?.remote?.kernelId).toBe(id);
  });

  it('restart() gives a fresh kernel and shuts the old one down on the server', async () => {
    const s = await remoteExecutor().session();
    await runCell(s, 'kept = 1');
    const old = s.kernel?.remote?.kernelId as string;
    await s.restart();
    const { result } = await runCell(s, 'kept');
    expect(result.error?.ename).toBe('NameError');
    expect(await runningKernels(server)).not.toContain(old);
  });

  it('a kernel that dies is restarted by the server and reported in its cell', async () => {
    const s = await remoteExecutor().session();
    await runCell(s, 'kept = 1');
    const { result, events } = await runCell(s, 'import os\nos._exit(3)');
    expect(result.status).toBe('error');
    expect(result.error?.ename).toBe('KernelRestarted');
    expect(events.find((e) => e.kind === 'error')).toMatchObject({
      evalue: expect.stringMatching(/died and the Jupyter server restarted it.*state was lost/),
    });
    const { result: after } = await runCell(s, 'kept');
    expect(after.error?.ename).toBe('NameError');
  });

  it('a restart by another client is reported in the running cell', async () => {
    const s = await remoteExecutor().session();
    const { result } = await runCell(
      s,
      'import time\nprint("running", flush=True)\nwhile True: time.sleep(0.01)',
      {
        onEvent: (e) => {
          if (e.kind === 'stdout' && e.text.includes('running'))
            void server.rest('POST', `api/kernels/${s.kernel?.remote?.kernelId}/restart`);
        },
      },
    );
    // The server interrupts a kernel before it restarts it: the interrupt's error may end the cell
    // before the restart is announced, and the cell then says who may have interrupted it.
    if (result.error?.ename === 'KeyboardInterrupt') expect(result.text).toContain(FOREIGN_INTERRUPT);
    else {
      expect(result.error?.ename).toBe('KernelRestarted');
      expect(result.error?.evalue).toMatch(/restarted through the Jupyter server.*state was lost/);
    }
    let next = (await runCell(s, '1+1')).result;
    // After the interrupt's error the restart may still come, and then ends the next cell (once:
    // it is one restart). A loaded machine gives that order.
    if (result.error?.ename === 'KeyboardInterrupt' && next.error?.ename === 'KernelRestarted')
      next = (await runCell(s, '1+1')).result;
    expect(next.text).toBe('2\n');
  });
});

describe('remote kernel: attaching with a kernel id', () => {
  it('sees a name defined there earlier, and leaves the kernel running when done', async () => {
    const { json } = await server.rest('POST', 'api/kernels', { name: 'python3' });
    const id = (json as { id: string }).id;
    const first = remoteExecutor({ 'jupyter.kernelId': id });
    await first.runOnce([py('shared = "from before"')]);
    await first.dispose();
    expect(await runningKernels(server)).toContain(id);
    const second = remoteExecutor({ 'jupyter.kernelId': id });
    const s = await second.session();
    const { result } = await runCell(s, 'shared');
    expect(result.text).toBe("'from before'\n");
    expect(s.kernel?.remote?.kernelId).toBe(id);
    // restart() of an attached kernel restarts it through the server: same id, state gone.
    await s.restart();
    const { result: after } = await runCell(s, 'shared');
    expect(after.error?.ename).toBe('NameError');
    expect(s.kernel?.remote?.kernelId).toBe(id);
    await second.dispose();
    expect(await runningKernels(server)).toContain(id);
    await server.rest('DELETE', `api/kernels/${id}`);
  });
});
