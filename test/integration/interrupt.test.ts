import { describe, expect, it } from 'vitest';
import type { Frame } from '../../src/eval/protocol/index.js';
import { interruptAfterReady, pidAlive, run, startKernel, waitFor } from '../helpers/kernel.js';

/** A cell that ignores SIGINT; it sleeps rather than spins, so that waiting for its kill costs no CPU. */
const DEAF =
  'import signal, time\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nprint("ready")\nwhile True:\n    time.sleep(0.05)';

describe('kernel: interrupt', () => {
  const cases: [string, string][] = [
    ['a Python loop', 'print("ready")\nwhile True:\n    pass'],
    ['time.sleep', 'import time\nprint("ready")\ntime.sleep(30)'],
    ['a top-level await', 'import asyncio\nprint("ready")\nawait asyncio.sleep(30)'],
    ['a wait on a child process', 'import subprocess\nprint("ready")\nsubprocess.run(["sleep", "30"])'],
  ];
  for (const [name, code] of cases) {
    it(`interrupts ${name}; the kernel keeps its state`, async () => {
      const k = await startKernel();
      await run(k, 'kept = "state"');
      const { outcome } = await interruptAfterReady(k, code);
      expect(outcome).toMatchObject({ status: 'error', cancelled: true, killed: false });
      expect(outcome.error?.ename).toBe('KeyboardInterrupt');
      expect(k.state).toBe('idle');
      expect((await run(k, 'kept')).result?.['text/plain']).toBe("'state'");
    });
  }

  it('points a top-level await interrupt at the awaiting line', async () => {
    const k = await startKernel();
    const { outcome } = await interruptAfterReady(
      k,
      // "ready" comes from a task of the gather, so only once the cell waits at line 4
      'import asyncio\nasync def announce():\n    print("ready")\nawait asyncio.gather(announce(), asyncio.sleep(30))',
    );
    const tb = outcome.error?.traceback.join('\n') ?? '';
    expect(tb).toContain('Cell In[1], line 4, in <module>');
    expect(tb).toContain('await asyncio.gather(announce(), asyncio.sleep(30))');
    expect(tb).not.toContain('base_events.py');
  });

  it('interrupts input() waiting for the host', async () => {
    const k = await startKernel();
    const { outcome, frames } = await interruptAfterReady(k, 'name = input("who? ")', { allowStdin: true });
    expect(frames.find((f) => f.type === 'input_request')).toMatchObject({
      prompt: 'who? ',
      password: false,
    });
    expect(outcome).toMatchObject({ cancelled: true });
    expect((await run(k, '1 + 1')).result?.['text/plain']).toBe('2');
  });

  it('ignores an interrupt between cells', async () => {
    const k = await startKernel();
    await run(k, 'x = 5');
    // The runner's group (in a sandbox, the runner's own: pid is bwrap's, which a SIGINT ends)
    const runner = k.runnerPid as number;
    process.kill(runner === k.pid ? -runner : runner, 'SIGINT');
    expect(k.state).toBe('idle');
    expect((await run(k, 'x')).result?.['text/plain']).toBe('5');
  });

  it('kills a kernel that ignores the interrupt, after the escalation window', async () => {
    const k = await startKernel({ interruptEscalationMs: 1500, shutdownGraceMs: 500 });
    const pid = k.pid as number;
    const { outcome } = await interruptAfterReady(k, DEAF);
    expect(outcome).toMatchObject({ status: 'error', cancelled: true, killed: true });
    expect(outcome.exit?.reason).toBe('interrupt-timeout');
    expect(k.state).toBe('dead');
    expect(pidAlive(pid)).toBe(false);
  });

  it('escalates after the default 5 s', async () => {
    const k = await startKernel();
    const { outcome } = await interruptAfterReady(k, DEAF);
    // (How long the window is, is measured by `npm run bench`.)
    expect(outcome).toMatchObject({ killed: true, exit: { reason: 'interrupt-timeout' } });
  });

  it('aborting a signal interrupts the running cell and drops queued ones', async () => {
    const k = await startKernel();
    const controller = new AbortController();
    let ready = false;
    const first = k.execute('print("ready")\nimport time\ntime.sleep(30)', {
      signal: controller.signal,
      onFrame: (f) => {
        if (f.type === 'stdout') ready = true;
      },
    });
    const queued = k.execute('never_runs = True', { signal: controller.signal });
    await waitFor(() => ready);
    controller.abort();
    expect(await first).toMatchObject({ cancelled: true, error: { ename: 'KeyboardInterrupt' } });
    expect(await queued).toMatchObject({ cancelled: true, status: 'error' });
    expect((await run(k, '"never_runs" in globals()')).result?.['text/plain']).toBe('False');
  });
});

describe('kernel: stdin', () => {
  it('raises at once in input() when the cell has no stdin', async () => {
    const k = await startKernel();
    const { outcome } = await run(k, 'input("name? ")');
    expect(outcome.error?.ename).toBe('StdinNotImplementedError');
    // (one message for input() and sys.stdin: it names both)
    const message =
      'stdin is not available: this cell was run without it (input(), sys.stdin). Pass the data in the code instead.';
    expect(outcome.error?.evalue).toBe(message);
    const { outcome: stdin } = await run(k, 'import sys\nsys.stdin.readline()');
    expect(stdin.error).toMatchObject({ ename: 'StdinNotImplementedError', evalue: message });
  });

  it('a cell that asks for input again after Ctrl-C (pdb) is listening: no kill, it goes on', async () => {
    // (The product's escalation window: under load pdb's new prompt may take a while to come.)
    const k = await startKernel();
    await run(k, 'kept = "state"');
    let asked = 0;
    const cell = run(k, 'import pdb\nx = 41\npdb.set_trace()\nx += 1\nprint("after", x)', {
      allowStdin: true,
      onFrame: (f) => {
        if (f.type === 'input_request') asked++;
      },
    });
    await waitFor(() => asked === 1, 60_000, "pdb's prompt");
    expect(k.interrupt()).toBe(true);
    // pdb says --KeyboardInterrupt-- and asks again: the interrupt is over, the kernel busy.
    await waitFor(() => asked === 2 && k.state === 'busy', 60_000, "pdb's prompt again");
    k.sendInput('c');
    const { outcome, stdout } = await cell;
    expect(outcome).toMatchObject({ status: 'ok', killed: false });
    expect(stdout).toContain('after 42');
    expect((await run(k, 'kept')).result?.['text/plain']).toBe("'state'");
  });

  it('answers input() through input_request and sendInput', async () => {
    const k = await startKernel();
    const { result, frames } = await run(k, 'a = input("first? ")\nb = input()\n(a, b)', {
      allowStdin: true,
      onFrame: (f) => {
        if (f.type === 'input_request') k.sendInput(f.prompt === 'first? ' ? 'one' : 'two');
      },
    });
    expect(frames.filter((f) => f.type === 'input_request')).toHaveLength(2);
    expect(result?.['text/plain']).toBe("('one', 'two')");
  });
});

describe('kernel: completion and getpass', () => {
  it('completes names from the user namespace and attributes of modules', async () => {
    const k = await startKernel();
    await run(k, 'value_one = 1\nvalue_two = 2\nimport os');
    // A deadline far past the product's 2 s: on a loaded machine the first completion is slow.
    const names = await k.complete('x = valu', 8, 600_000);
    expect(names).toEqual({ matches: ['value_one', 'value_two'], start: 4, end: 8 });
    const attrs = await k.complete('os.pat', 6, 600_000);
    expect(attrs.matches).toContain('os.path');
    expect(attrs.start).toBe(0);
  });

  it('answers no completions while a cell runs', async () => {
    const k = await startKernel();
    const running = run(k, 'import time\ntime.sleep(0.5)');
    expect(k.state).toBe('busy');
    expect(await k.complete('pri', 3)).toEqual({ matches: [], start: 3, end: 3 });
    await running;
  });

  it('asks for getpass answers with password set, whether getpass was imported before or in the cell', async () => {
    const k = await startKernel();
    const requests: Frame[] = [];
    const answer = (f: Frame) => {
      if (f.type === 'input_request') {
        requests.push(f);
        k.sendInput('s3cret');
      }
    };
    const same = await run(k, 'import getpass\ngetpass.getpass("Token: ")', {
      allowStdin: true,
      onFrame: answer,
    });
    expect(same.result?.['text/plain']).toBe("'s3cret'");
    const later = await run(k, 'getpass.getpass("Again: ")', { allowStdin: true, onFrame: answer });
    expect(later.result?.['text/plain']).toBe("'s3cret'");
    expect(requests.map((r) => r.type === 'input_request' && r.password)).toEqual([true, true]);
    expect(requests[1]).toMatchObject({ prompt: 'Again: ' });
  });
});
