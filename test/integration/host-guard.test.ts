/**
 * Issue 14, items 1, 2, 3 and 5: nothing the host starts (kernels and what their cells start in
 * other groups or sessions, interpreter probes, agent and completion commands) outlives a host
 * that was SIGKILLed; the guard needs no pkill, blocks instead of polling, has no secrets, and
 * says what it could not stop.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PythonNotFoundError, resolvePython } from '../../src/eval/launch/python.js';
import { GUARD_SCRIPT, hostGuardPid } from '../../src/eval/process/hostGuard.js';
import { pidAlive, settle, startKernel, waitFor } from '../helpers/kernel.js';

const DIST = new URL('../../dist/src/eval/', import.meta.url).pathname;
/** Sleep durations no other process uses: each test's processes are found by them. */
const TAG = String(6_000_000 + Math.floor(Math.random() * 900_000));

/** A process's command line, arguments joined by spaces ('' once it is gone). */
function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
  } catch {
    return '';
  }
}

/** Live processes whose command line contains `marker` (a number no other test uses). */
function processesWith(marker: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || hosts.some((h) => h.pid === Number(entry))) continue;
    try {
      if (commandLine(Number(entry)).includes(marker) && pidAlive(Number(entry))) found.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

const hosts: ChildProcess[] = [];
const leftovers: number[] = [];
afterEach(() => {
  for (const host of hosts.splice(0)) host.kill('SIGKILL');
  for (const pid of leftovers.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL'); // never leave a sleeper behind, even on failure
    } catch {
      // gone, as it should be
    }
  }
});

/** A host process running `body` (an ES module using the compiled engine in dist/). */
function host(body: string, env: NodeJS.ProcessEnv = process.env): ChildProcess {
  const child = spawn(process.execPath, ['--input-type=module', '-e', body], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env,
  });
  hosts.push(child);
  return child;
}

/** SIGKILLs the host once `marker` processes are running; expects every one of them gone. */
async function killHostAndExpectGone(child: ChildProcess, markers: string[]) {
  let pids: number[] = [];
  await waitFor(
    () => {
      const running = markers.map(processesWith);
      pids = running.flat();
      return running.every((found) => found.length > 0);
    },
    60_000,
    `${markers} to run`,
  );
  leftovers.push(...pids);
  child.kill('SIGKILL');
  const survivors = await settle(
    () => pids.filter(pidAlive).map((pid) => `${pid} ${commandLine(pid)}`),
    (alive) => alive.length === 0,
  );
  expect(survivors, 'processes still running after their host was killed').toEqual([]);
  // Gone: their pids may be other processes' soon, which the cleanup must not kill.
  leftovers.splice(0);
}

describe('what the host starts dies with it', () => {
  it('an agent command and its children (item 1)', async () => {
    const child = host(`
      import { createExecutor } from '${DIST}index.js';
      const executor = createExecutor({ settings: { 'bridge.agentCommand': 'sleep ${TAG}11; echo answer' } });
      const session = await executor.session();
      void session.run([{ language: 'py', code: 'agent("hi")' }]);
      setInterval(() => {}, 1000);
    `);
    await killHostAndExpectGone(child, [`sleep ${TAG}11`]);
  });

  it('children in other groups and sessions, with no pkill on PATH (item 2)', async () => {
    const python = await resolvePython({ cwd: process.cwd() });
    const code = [
      'import os, subprocess',
      `subprocess.Popen(['/bin/sleep', '${TAG}21'], process_group=0)`,
      `os.system('/usr/bin/nohup /bin/sleep ${TAG}22 >/dev/null 2>&1 &')`,
      `subprocess.Popen(['/bin/sleep', '${TAG}23'], start_new_session=True)`,
      'import time; time.sleep(1000)',
    ].join('\n');
    const child = host(
      `
      import { Kernel } from '${DIST}index.js';
      const k = await Kernel.start({ python: ${JSON.stringify(python.executable)} });
      void k.execute(${JSON.stringify(code)});
      setInterval(() => {}, 1000);
    `,
      { PATH: '/nonexistent', HOME: process.env.HOME },
    );
    await killHostAndExpectGone(child, [`sleep ${TAG}21`, `sleep ${TAG}22`, `sleep ${TAG}23`]);
  });

  it('an interpreter probe and what its wrapper started (item 3)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'omp-probe-'));
    const wrapper = join(dir, 'python');
    writeFileSync(wrapper, `#!/bin/sh\nsleep ${TAG}31\n`);
    chmodSync(wrapper, 0o755);
    const child = host(`
      import { resolvePython } from '${DIST}launch/python.js';
      await resolvePython({ interpreter: ${JSON.stringify(wrapper)}, cwd: ${JSON.stringify(dir)} });
    `);
    await killHostAndExpectGone(child, [`sleep ${TAG}31`, wrapper]);
  });
});

describe('the interpreter probe', () => {
  it('says that it timed out, and leaves nothing running (item 3)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'omp-probe-'));
    const wrapper = join(dir, 'python');
    writeFileSync(wrapper, `#!/bin/sh\nsleep ${TAG}41\n`);
    chmodSync(wrapper, 0o755);
    const err = await resolvePython({ interpreter: wrapper, cwd: dir, probeTimeoutMs: 300 }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(PythonNotFoundError);
    expect((err as Error).message).toContain('timed out after 0.3 s');
    expect(processesWith(`sleep ${TAG}41`)).toEqual([]);
    expect(processesWith(wrapper)).toEqual([]);
  });

  it('runs without the host secrets (item 5, "the secrets a kernel can still read")', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'omp-probe-'));
    const wrapper = join(dir, 'python');
    const seen = join(dir, 'env.txt');
    const real = (await resolvePython({ cwd: process.cwd() })).executable;
    writeFileSync(wrapper, `#!/bin/sh\nenv > ${seen}\nexec ${real} "$@"\n`);
    chmodSync(wrapper, 0o755);
    const env = {
      ...process.env,
      OMP_EVAL_NO_PROBE_CACHE: '1',
      FOO_API_KEY: 'secret-1',
      DATABASE_URL: 'postgres://app:secret-2@db/app',
      HTTPS_PROXY: 'http://user:secret-3@proxy:3128',
    };
    await resolvePython({ interpreter: wrapper, cwd: dir, env });
    const text = readFileSync(seen, 'utf8');
    expect(text).toContain('PATH=');
    expect(text).not.toMatch(/secret-/);
  });
});

describe('the host guard', () => {
  it('is one process for all kernels, blocked, with no children and an empty environment (item 5)', async () => {
    process.env.OMP_TEST_GUARD_SECRET_TOKEN = 'secret';
    try {
      const kernels = await Promise.all([startKernel(), startKernel(), startKernel()]);
      for (const k of kernels) await k.execute('1');
      const guard = hostGuardPid() as number;
      expect(guard).toBeGreaterThan(1);
      const shells = readdirSync('/proc').filter((e) => {
        try {
          return /^\d+$/.test(e) && readFileSync(`/proc/${e}/cmdline`, 'utf8').includes('ids=');
        } catch {
          return false;
        }
      });
      expect(shells.map(Number).filter((pid) => ppidOf(pid) === process.pid)).toEqual([guard]);
      expect(readFileSync(`/proc/${guard}/environ`, 'utf8')).toBe('');
      // Blocked in a read: sleeping, and no process of its own (no `sleep` started to poll).
      expect(readFileSync(`/proc/${guard}/stat`, 'utf8').split(') ')[1]?.[0]).toBe('S');
      expect(childrenOf(guard)).toEqual([]);
    } finally {
      delete process.env.OMP_TEST_GUARD_SECRET_TOKEN;
    }
  });

  it('says on stderr which process it could not stop (item 2)', async () => {
    // A root process the guard, run as nobody, may not signal.
    const victim = spawn('/bin/sleep', ['6010141'], { detached: true, stdio: 'ignore' });
    leftovers.push(victim.pid as number);
    const guard = spawn(
      'setpriv',
      ['--reuid=65534', '--regid=65534', '--clear-groups', '/bin/sh', '-c', GUARD_SCRIPT],
      { stdio: ['pipe', 'ignore', 'pipe'] },
    );
    let stderr = '';
    guard.stderr?.on('data', (d) => {
      stderr += d;
    });
    guard.stdin?.end(`+${victim.pid}\n`); // and EOF: the "host" is gone
    await new Promise((resolve) => guard.once('close', resolve));
    expect(stderr).toContain(`the host is gone, but process ${victim.pid} could not be stopped`);
    expect(pidAlive(victim.pid as number)).toBe(true);
  });

  it('forgets a group once released, and kills nothing when no group is guarded', async () => {
    const victim = spawn('/bin/sleep', ['6010151'], { detached: true, stdio: 'ignore' });
    leftovers.push(victim.pid as number);
    const guard = spawn('/bin/sh', ['-c', GUARD_SCRIPT], { stdio: ['pipe', 'ignore', 'inherit'], env: {} });
    guard.stdin?.end(`+${victim.pid}\n+123456789\n-${victim.pid}\n`);
    await new Promise((resolve) => guard.once('close', resolve));
    expect(pidAlive(victim.pid as number)).toBe(true);
  });
});

function ppidOf(pid: number): number {
  return Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ')[1]);
}

function childrenOf(pid: number): number[] {
  return readdirSync('/proc')
    .filter((e) => /^\d+$/.test(e))
    .filter((e) => {
      try {
        return ppidOf(Number(e)) === pid;
      } catch {
        return false;
      }
    })
    .map(Number);
}
