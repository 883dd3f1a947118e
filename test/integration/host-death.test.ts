import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { signalGroup } from '../../src/eval/process/processGroup.js';
import { groupAlive, pidAlive, settle, waitFor } from '../helpers/kernel.js';

/** A host process that starts a kernel, runs `code`, prints the kernel's pid, and waits. */
function hostWith(code: string) {
  const script = `
    import { Kernel } from '${new URL('../../dist/src/eval/index.js', import.meta.url).pathname}';
    const k = await Kernel.start({});
    void k.execute(${JSON.stringify(code)});
    setTimeout(() => process.stdout.write(String(k.pid) + '\\n'), 300);
    setInterval(() => {}, 1000);
  `;
  // The compiled client (npm test builds before it runs vitest).
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const pid = new Promise<number>((resolve) =>
    child.stdout.once('data', (d) => resolve(Number(String(d).trim()))),
  );
  return { child, pid };
}

describe('kernels never outlive their host', () => {
  const cases: [string, string][] = [
    ['a tight Python loop', 'while True: pass'],
    ['a loop in C that holds the GIL', 'import itertools\nany(itertools.repeat(0))'],
    [
      'time.sleep with a child process',
      'import subprocess, time\nsubprocess.Popen(["sleep", "1000"])\ntime.sleep(100)',
    ],
  ];
  for (const [name, code] of cases) {
    it(`a SIGKILLed host takes its kernel along within 2 s: ${name}`, async () => {
      const { child, pid } = hostWith(code);
      const kernel = await pid;
      let gone = false;
      try {
        expect(pidAlive(kernel)).toBe(true);
        child.kill('SIGKILL');
        await waitFor(() => !groupAlive(kernel), 60_000, 'the kernel group to be gone');
        gone = true;
      } finally {
        // Never leave a spinning kernel behind on failure; once it is gone its group id may be
        // another test's process group (a kernel of the IPython oracle, say): not signalled then.
        if (!gone) signalGroup(kernel, 'SIGKILL');
      }
    });
  }
});

describe('a host that exits without shutting its kernels down', () => {
  it('kills them on its way out (process exit handler)', async () => {
    const script = `
      import { Kernel } from '${new URL('../../dist/src/eval/index.js', import.meta.url).pathname}';
      import { hostGuardPid } from '${new URL('../../dist/src/eval/process/hostGuard.js', import.meta.url).pathname}';
      const k = await Kernel.start({});
      // Without the host guard, only the exit handler can take the kernel along.
      process.kill(hostGuardPid(), 'SIGKILL');
      void k.execute('import time\\ntime.sleep(100)', {
        onFrame: (f) => {
          if (f.type !== 'started') return;
          process.stdout.write(String(k.pid) + '\\n');
          process.exit(0);
        },
      });
    `;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const kernel = await new Promise<number>((resolve) =>
      child.stdout.once('data', (d) => resolve(Number(String(d).trim()))),
    );
    const code = await new Promise((resolve) => child.once('close', resolve));
    let gone = false;
    try {
      expect(code, 'the host ended by process.exit(0)').toBe(0);
      gone = !(await settle(
        () => groupAlive(kernel),
        (alive) => !alive,
      ));
      expect(gone, 'the kernel gone when the host exited').toBe(true);
    } finally {
      if (!gone) signalGroup(kernel, 'SIGKILL'); // never leave a kernel behind on failure
    }
  });
});
