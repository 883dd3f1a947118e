/**
 * What the command line does to its own process: errors a user can cause told apart, a reader
 * that went away, the end once output is flushed, the notebook's held-back log.
 */
import type { Logger } from './eval/index.js';

/** Whether an error is one a user can cause (a clear one-line message, no stack). */
export async function knownError(err: unknown): Promise<boolean> {
  const { ExecutorError, KernelStartError, PythonNotFoundError, SandboxError, SettingsError } = await import(
    './eval/index.js'
  );
  return [SettingsError, ExecutorError, PythonNotFoundError, KernelStartError, SandboxError].some(
    (type) => err instanceof type,
  );
}

/**
 * The reader of stdout or stderr went away (`omp-eval run x.py | head`): the command ends as `cat`
 * and `seq` do on SIGPIPE, quietly and with 128 + 13; the exit hook stops its kernels. (Without
 * this, the write's EPIPE would end it with a stack trace.)
 */
let pipeWatched = false;
export function endOnBrokenPipe(): void {
  if (pipeWatched) return;
  pipeWatched = true;
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EPIPE') throw err;
      process.exit(141);
    });
  }
}

/**
 * Ends the process once stdout and stderr took what was written to them. For a command whose
 * kernels are gone and whose output is written, nothing is left to do: Node's own winding down
 * (closing what is left, one turn of the event loop at a time) would only add to every call.
 */
export async function exitWhenFlushed(): Promise<never> {
  const flushed = (stream: NodeJS.WriteStream) =>
    new Promise<void>((resolve) => {
      if (stream.destroyed || !stream.writable) resolve();
      else stream.write('', () => resolve()); // (an error is reported by the stream's handler)
    });
  await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
  process.exit();
}

/**
 * The notebook's logger: Ink owns the screen, so what the engine reports is kept (the last 200
 * messages) and written to stderr once the notebook has ended and restored the terminal.
 */
export function deferredLogger(): { logger: Logger; flush: () => void } {
  const held: string[] = [];
  const keep = (line: string) => {
    held.push(line.endsWith('\n') ? line : `${line}\n`);
    if (held.length > 200) held.shift();
  };
  return {
    logger: { trace: keep, warn: (message) => keep(`omp-eval: warning: ${message}`) },
    flush: () => {
      for (const line of held.splice(0)) process.stderr.write(line);
    },
  };
}
