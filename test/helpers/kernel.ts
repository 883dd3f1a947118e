import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { afterEach, expect } from 'vitest';
import { type ExecuteOptions, Kernel, type KernelOptions } from '../../src/eval/index.js';
import type { Frame } from '../../src/eval/protocol/index.js';

const started: Kernel[] = [];

/** Starts a real kernel that is shut down after the test. */
export async function startKernel(opts: KernelOptions = {}): Promise<Kernel> {
  const kernel = await Kernel.start(opts);
  started.push(kernel);
  return kernel;
}

afterEach(async () => {
  await Promise.all(started.splice(0).map((k) => k.shutdown()));
});

/** Runs a cell and collects its frames. */
export async function run(kernel: Kernel, code: string, opts: ExecuteOptions = {}) {
  const frames: Frame[] = [];
  const outcome = await kernel.execute(code, {
    ...opts,
    onFrame: (f) => {
      frames.push(f);
      opts.onFrame?.(f);
    },
  });
  const text = (type: 'stdout' | 'stderr') =>
    frames
      .filter((f): f is Extract<Frame, { type: 'stdout' | 'stderr' }> => f.type === type)
      .map((f) => f.data)
      .join('');
  const result = frames.find((f) => f.type === 'result');
  return {
    outcome,
    frames,
    stdout: text('stdout'),
    stderr: text('stderr'),
    result: result?.type === 'result' ? result.bundle : undefined,
  };
}

/**
 * Starts `code`, waits until it printed "ready" (or asked for input) and `until` holds, interrupts it, and returns the outcome, the time from the interrupt to the end and the
 * frames.
 */
export async function interruptAfterReady(
  k: Kernel,
  code: string,
  opts: { allowStdin?: boolean; until?: () => boolean } = {},
) {
  let ready = false;
  const frames: Frame[] = [];
  const pending = run(k, code, {
    ...(opts.allowStdin ? { allowStdin: true } : {}),
    onFrame: (f) => {
      frames.push(f);
      if ((f.type === 'stdout' && f.data.includes('ready')) || f.type === 'input_request') ready = true;
    },
  });
  await waitFor(() => ready, 60_000, 'the cell to start');
  if (opts.until) await waitFor(opts.until, 60_000, 'the condition to interrupt on');
  const t0 = performance.now();
  expect(k.interrupt()).toBe(true);
  expect(k.state).toBe('interrupting');
  const { outcome } = await pending;
  return { outcome, ms: performance.now() - t0, frames };
}

/** Resolves when the predicate holds, polling every 10 ms. */
/** The factor of every deadline in the tests (OMP_EVAL_TEST_SLOW, as vitest.config.ts's timeouts). */
export const TEST_SLOW = Number(process.env.OMP_EVAL_TEST_SLOW) || 1;

/** The time `ms` from now, times TEST_SLOW: a test's deadline for a condition. */
export function deadlineIn(ms: number): number {
  return Date.now() + ms * TEST_SLOW;
}

export async function waitFor(predicate: () => boolean, timeoutMs = 60_000, what = 'condition') {
  const until = deadlineIn(timeoutMs);
  while (!predicate()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * Reads `value` until `done` says it is what the test waits for, or until `timeoutMs`, and returns
 * the last value read either way: the test's expect says what it was (clearer than a timeout).
 */
export async function settle<T>(value: () => T, done: (value: T) => boolean, timeoutMs = 60_000): Promise<T> {
  const until = deadlineIn(timeoutMs);
  for (;;) {
    const now = value();
    if (done(now) || Date.now() > until) return now;
    await new Promise((r) => setTimeout(r, 10));
  }
}

export { groupAlive, pidAlive } from '../../src/eval/process/processGroup.js';

/**
 * The host pid of a kernel's process that calls itself `innerPid` (os.getpid() in a cell): the
 * same number, unless the kernel runs in a sandbox's PID namespace. Found among the processes of
 * the kernel's session while they live.
 */
export function hostPid(k: Kernel, innerPid: number): number {
  for (const entry of readdirSync('/proc')) {
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const session = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[3]);
      const nspid = readFileSync(`/proc/${entry}/status`, 'utf8').match(/^NSpid:\s+(.*)$/m)?.[1];
      if (session === k.pid && Number(nspid?.trim().split(/\s+/).at(-1)) === innerPid) return Number(entry);
    } catch {
      // not a process, or gone
    }
  }
  return innerPid;
}

/** Output of a short command. */
export function capture(cmd: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.on('error', reject);
    child.on('close', () => resolve(out));
  });
}
