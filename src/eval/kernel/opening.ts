/**
 * A local kernel's opening: the checks before it, its process spawned (launch/spawn.ts) and wired
 * to the host's end of its channels, and the verdict on its init request.
 */
import { statSync } from 'node:fs';
import type { Language } from '../language.js';
import { getPreludeSource } from '../launch/runnerFile.js';
import { spawnKernel } from '../launch/spawn.js';
import { type ExecuteRequest, initRequest } from '../protocol/index.js';
import { type ChannelHandlers, type ChannelOptions, KernelChannel } from './channel.js';
import { type CellOutcome, describeExit, type KernelOptions, KernelStartError } from './types.js';

/** The working directory must exist and be a directory, before anything is spawned. */
function checkDirectory(cwd: string): void {
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

/**
 * Spawns the kernel's process in `cwd` (checked first) and opens its channel: `handlers` hear its
 * frames, `names` say whose they are in logs.
 */
export async function openChannel(
  language: Language,
  cwd: string,
  opts: KernelOptions,
  handlers: ChannelHandlers,
  names: Pick<ChannelOptions, 'name' | 'label' | 'logger' | 'trace'>,
): Promise<KernelChannel> {
  checkDirectory(cwd);
  const proc = await (opts.spawned ?? spawnKernel(language, cwd, opts, names.logger));
  return new KernelChannel(proc, handlers, {
    ...names,
    ...(opts.bridge ? { bridge: opts.bridge } : {}),
    ...(opts.rawSyncMs !== undefined ? { rawSyncMs: opts.rawSyncMs } : {}),
  });
}

/** The init request: the working directory, the environment, the prelude (Python's, unless turned off). */
export function initRequestOf(
  name: string,
  language: Language,
  cwd: string,
  opts: KernelOptions,
  frameKey: string | undefined,
): ExecuteRequest {
  const prelude = opts.prelude === false || language === 'js' ? '' : (opts.prelude ?? getPreludeSource());
  return initRequest(`init-${name}`, prelude, cwd, opts.env, frameKey, opts.script);
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
