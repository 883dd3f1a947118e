import { describe, expect, it } from 'vitest';
import { groupAlive, hostPid, pidAlive, run, startKernel, waitFor } from '../helpers/kernel.js';

describe('kernel: interrupts at awkward moments', () => {
  it('an interrupt sent in the same tick as execute() cancels the cell instead of killing the kernel', async () => {
    const k = await startKernel({ interruptEscalationMs: 10_000 });
    await run(k, 'kept = 1');
    for (let i = 0; i < 5; i++) {
      const pending = k.execute('import time\ntime.sleep(30)');
      k.interrupt();
      const outcome = await pending;
      expect(outcome).toMatchObject({
        cancelled: true,
        killed: false,
        error: { ename: 'KeyboardInterrupt' },
      });
    }
    expect((await run(k, 'kept')).result?.['text/plain']).toBe('1');
  });

  it('puts its SIGINT handler back after a cell replaced it', async () => {
    const k = await startKernel();
    await run(k, 'import signal\nsignal.signal(signal.SIGINT, signal.default_int_handler)\nx = 3');
    await run(k, 'pass');
    process.kill(k.runnerPid as number, 'SIGINT'); // (the runner: in a sandbox, pid is bwrap's)
    expect(k.state).toBe('idle');
    expect((await run(k, 'x')).result?.['text/plain']).toBe('3');
  });

  it('leaves background processes of earlier cells running when a cell is interrupted', async () => {
    const k = await startKernel();
    await run(k, 'import subprocess\nserver = subprocess.Popen(["sleep", "1000"])');
    let ready = false;
    const pending = run(k, 'print("ready")\nwhile True: pass', {
      onFrame: (f) => {
        if (f.type === 'stdout') ready = true;
      },
    });
    await waitFor(() => ready);
    k.interrupt();
    await pending;
    expect((await run(k, 'server.poll()')).result).toBeUndefined();
  });

  it('interrupts os.system together with its process group', async () => {
    const k = await startKernel();
    let ready = false;
    const pending = run(k, 'import os\nprint("ready", flush=True)\nos.system("sleep 30; echo never")', {
      onFrame: (f) => {
        if (f.type === 'stdout') ready = true;
      },
    });
    await waitFor(() => ready);
    k.interrupt();
    const { outcome, stdout } = await pending;
    // Not killed: the interrupt reached the shell's group (a `sleep 30` would outlast escalation).
    expect(outcome).toMatchObject({ cancelled: true, killed: false });
    expect(stdout).not.toContain('never');
    expect((await run(k, 'os.system("exit 3") >> 8')).result?.['text/plain']).toBe('3');
  });

  it('returns the result of a cell that handles the cancellation of its await', async () => {
    const k = await startKernel();
    let ready = false;
    const pending = run(
      k,
      // "ready" is printed by the event loop once the cell is suspended in its await: an interrupt
      // while the cell's own code still runs is a KeyboardInterrupt in the cell, as in IPython.
      'import asyncio\nasync def work():\n    try:\n        asyncio.get_running_loop().call_soon(lambda: print("ready"))\n        await asyncio.sleep(30)\n    except asyncio.CancelledError:\n        return "cleaned up"\nawait work()',
      {
        onFrame: (f) => {
          if (f.type === 'stdout') ready = true;
        },
      },
    );
    await waitFor(() => ready);
    k.interrupt();
    const { outcome, result } = await pending;
    expect(outcome.status).toBe('ok');
    expect(result?.['text/plain']).toBe("'cleaned up'");
  });
});

describe('kernel: forks and closed channels', () => {
  it('delivers output of forked children and multiprocessing workers', async () => {
    const k = await startKernel();
    const fork = await run(
      k,
      'import os\npid = os.fork()\nif pid == 0:\n    print("child says hi")\n    os._exit(0)\nos.waitpid(pid, 0)\nprint("parent")',
    );
    expect(fork.stdout).toBe('child says hi\nparent\n');
    const pool = await run(
      k,
      'import multiprocessing as mp\ndef f(x):\n    print("worker", x)\n    return x * x\nwith mp.get_context("fork").Pool(2) as p:\n    out = p.map(f, range(4))\nout',
    );
    expect(pool.result?.['text/plain']).toBe('[0, 1, 4, 9]');
    expect(pool.stdout.split('\n').filter(Boolean).sort()).toEqual([
      'worker 0',
      'worker 1',
      'worker 2',
      'worker 3',
    ]);
  });

  it('a bare os.fork() does not leave a second kernel serving requests', async () => {
    const k = await startKernel();
    const { frames } = await run(k, 'import os\nforked = os.fork()');
    expect(frames.filter((f) => f.type === 'done')).toHaveLength(1);
    const pids = new Set<string>();
    for (let i = 0; i < 6; i++) pids.add(String((await run(k, 'os.getpid()')).result?.['text/plain']));
    expect([...pids].map((pid) => hostPid(k, Number(pid)))).toEqual([k.runnerPid]);
  });

  it('notices a kernel death at once even while a forked child holds its pipes', async () => {
    const k = await startKernel({ shutdownGraceMs: 200 });
    // The child holds the pipes for an hour: only noticing the death at the kernel's own exit
    // (not when the pipes close) ends this cell before the test's timeout.
    const { outcome } = await run(
      k,
      'import os, time\nif os.fork() == 0:\n    time.sleep(3600)\n    os._exit(0)\nos._exit(3)',
    );
    expect(outcome.exit?.code).toBe(3);
  });

  it('recovers when a cell closes sys.stdout or fd 1, or moves fd 2', async () => {
    const k = await startKernel();
    await run(k, 'import sys, os\nsys.stdout.close()');
    expect((await run(k, 'print("back")')).stdout).toBe('back\n');
    await run(k, 'os.close(1)');
    expect((await run(k, 'os.write(1, b"fd back\\n"); print("print back")')).stdout).toBe(
      'fd back\nprint back\n',
    );
    await run(k, 'f = open(os.devnull, "w")\nos.dup2(f.fileno(), 2)');
    expect((await run(k, 'os.write(2, b"stderr back\\n")')).stderr).toBe('stderr back\n');
  });
});

describe('kernel: ordering, sources and limits', () => {
  it('keeps stdout and stderr in the order they were written', async () => {
    const k = await startKernel();
    const { frames } = await run(
      k,
      'import sys\nprint("A", end="")\nsys.stderr.write("B")\nprint("C")\nsys.stderr.write("D\\n")\nprint("1")\nimport posix\nposix.write(1, b"2\\n")',
    );
    // Neighbouring frames of one stream may be split or joined by timing: compare the runs.
    const runs: string[] = [];
    let last = '';
    for (const f of frames) {
      if (f.type !== 'stdout' && f.type !== 'stderr') continue;
      const tag = f.type === 'stdout' ? 'o' : 'e';
      if (tag === last) runs[runs.length - 1] += f.data;
      else runs.push(`${tag}:${f.data}`);
      last = tag;
    }
    const sequence = runs.join('|');
    expect(sequence).toBe('o:A|e:B|o:C\n|e:D\n|o:1\n2\n');
  });

  it('makes the kernel loop current for sync cells, before and after asyncio.run', async () => {
    const k = await startKernel();
    await run(k, 'import asyncio\nasync def f():\n    return 5\nt = asyncio.ensure_future(f())');
    expect((await run(k, 'await t')).result?.['text/plain']).toBe('5');
    await run(k, 'asyncio.run(f())');
    await run(k, 't2 = asyncio.ensure_future(f())');
    expect((await run(k, 'await t2')).result?.['text/plain']).toBe('5');
  });

  it('caps an enormous result instead of breaking the protocol', async () => {
    const k = await startKernel();
    const { result, outcome, stderr } = await run(k, '"x" * 40_000_000');
    expect(outcome.status).toBe('ok');
    const text = String(result?.['text/plain']);
    expect(text.length).toBeLessThan(34 * 1024 * 1024);
    expect(text).toMatch(/characters omitted/);
    expect(stderr).toBe('');
    expect((await run(k, '1')).result?.['text/plain']).toBe('1');
  });

  it('drops _repr_json_ data that is not JSON, with a warning', async () => {
    const k = await startKernel();
    const { result, stderr } = await run(
      k,
      'class J:\n    def _repr_json_(self):\n        d = []\n        for _ in range(100000):\n            d = [d]\n        return d\n    def __repr__(self):\n        return "J"\nJ()',
    );
    expect(result).toEqual({ 'text/plain': 'J' });
    expect(stderr).toMatch(/application\/json data is not JSON/);
  });

  it('numbers traceback lines as Python does when the source has U+2028 or a lone \\r', async () => {
    const k = await startKernel();
    const { outcome } = await run(k, 's = "a\u2028b"\nt = 1\nraise ValueError()');
    expect(outcome.error?.traceback.join('\n')).toContain(
      'Cell In[1], line 3, in <module>\n    raise ValueError()',
    );
    const cr = await run(k, 'x = 1\r2');
    expect(cr.result?.['text/plain']).toBe('2');
  });

  it('leaves nothing of os.system children behind after shutdown', async () => {
    const k = await startKernel({ shutdownGraceMs: 300 });
    const pid = k.pid as number;
    await run(k, 'import os\nos.system("sleep 1000 &")');
    await k.shutdown();
    expect(pidAlive(pid)).toBe(false);
    expect(groupAlive(pid)).toBe(false);
  });
});
