import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { onTestFinished } from 'vitest';

export const BIN = fileURLToPath(new URL('../../bin/omp-eval.js', import.meta.url));

export interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

let lastPid = 0;

/**
 * CLIs still running. A test that failed or timed out while one ran (a call that hangs) does not
 * leave it behind: it is stopped when its test ends, and when the test process exits. (One left
 * running kept a kernel spinning on a core through a whole later CI run.)
 */
const running = new Set<ChildProcess>();
const stop = (child: ChildProcess) => {
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
};
process.on('exit', () => {
  for (const child of running) stop(child);
});

/** The pid of the CLI process started last. */
export function lastChildPid(): number {
  return lastPid;
}

/** Runs bin/omp-eval.js (built by `npm test` before vitest) and collects what it printed. */
export function cli(
  args: string[],
  opts: {
    input?: string;
    env?: NodeJS.ProcessEnv;
    cwd?: string;
    onStdout?: (text: string, child: ReturnType<typeof spawn>) => void;
    /** Leaves stdin open after `input` (onStdout ends it). */
    keepStdinOpen?: boolean;
  } = {},
): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: opts.cwd,
      env: { ...process.env, ...opts.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    lastPid = child.pid ?? 0;
    running.add(child);
    child.on('exit', () => running.delete(child));
    try {
      onTestFinished(() => stop(child));
    } catch {
      // (started outside a test, in a hook: the hook's own cleanup ends it)
    }
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (d: string) => {
      stdout += d;
      opts.onStdout?.(stdout, child);
    });
    child.stderr.on('data', (d: string) => {
      stderr += d;
    });
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
    if (opts.keepStdinOpen) child.stdin.write(opts.input ?? '');
    else child.stdin.end(opts.input ?? '');
  });
}
