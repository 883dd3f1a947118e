/** Checks before a kernel starts, and the verdict on its init request. */
import { statSync } from 'node:fs';
import { type CellOutcome, describeExit, KernelStartError } from './types.js';

/** The working directory must exist and be a directory, before anything is spawned. */
export function checkDirectory(cwd: string): void {
  let st: ReturnType<typeof statSync> | undefined;
  try {
    st = statSync(cwd);
  } catch {
    // reported below
  }
  if (!st?.isDirectory()) {
    throw new KernelStartError(
      st ? `Working directory is not a directory: ${cwd}` : `Working directory does not exist: ${cwd}`,
    );
  }
}

export interface InitWait {
  label: string;
  executable: () => string;
  timeoutMs: number;
  /** The kernel's stderr so far (a kernel stuck in start-up may have said why). */
  stderrTail: () => string;
  /** Stops the kernel that did not become ready. */
  shutdown: () => Promise<unknown>;
}

/** Waits for the init request under the start-up deadline; throws KernelStartError why not. */
export async function awaitInit(
  init: Promise<CellOutcome>,
  spawnFailed: Promise<never>,
  w: InitWait,
): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), w.timeoutMs);
  });
  try {
    const outcome = await Promise.race([init, timedOut, spawnFailed]);
    if (outcome === 'timeout') {
      await w.shutdown();
      throw new KernelStartError(
        `The ${w.label} kernel did not become ready within ${w.timeoutMs / 1000}s`,
        w.stderrTail().trim(),
      );
    }
    if (outcome.exit) {
      throw new KernelStartError(
        `The ${w.label} kernel (${w.executable()}) exited during start-up with ${describeExit(outcome.exit)}`,
        outcome.exit.stderrTail.trim(),
      );
    }
    if (outcome.status !== 'ok') {
      const detail = outcome.error ? outcome.error.traceback.join('\n') : '';
      throw new KernelStartError('The kernel prelude failed', detail);
    }
  } finally {
    clearTimeout(timer);
  }
}
