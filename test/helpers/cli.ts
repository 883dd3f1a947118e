import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const BIN = fileURLToPath(new URL('../../bin/omp-eval.js', import.meta.url));

export interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

let lastPid = 0;

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
