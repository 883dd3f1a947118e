/**
 * The sandbox part of `omp-eval setup python --check`: which environment and sandbox mode each
 * command runs kernels with, and whether this machine can give it (bubblewrap found and working, how memory is limited).
 */
import {
  checkSandbox,
  describeEnvFilter,
  describeSandbox,
  findBwrap,
  memoryLimitOf,
  memoryMethodHere,
  type Settings,
  sandboxOf,
} from '../eval/index.js';
import type { Streams } from './output.js';

/** Prints the sandbox lines; resolves 1 when a mode in force cannot run here, else 0. */
export async function checkSandboxSetup(settings: Settings, { out, err }: Streams): Promise<number> {
  const terminal = sandboxOf(settings); // the notebook, run and tool
  const mcp = sandboxOf(settings, process.env, 'workspace-write');
  out.write(`environment: ${describeEnvFilter(settings)}\n`);
  if (terminal.mode === mcp.mode) out.write(`sandbox:     ${describeSandbox(terminal)}\n`);
  else out.write(`sandbox:     ${describeSandbox(terminal)}; omp-eval mcp: ${describeSandbox(mcp)}\n`);
  const sandboxed = [terminal, mcp].filter((s) => s.mode !== 'off');
  if (sandboxed.length) out.write(`bubblewrap:  ${findBwrap() ?? 'not found'}\n`);
  if ([terminal, mcp].some((s) => memoryLimitOf(s) !== undefined))
    out.write(
      `memory:      limited by ${memoryMethodHere() === 'cgroup' ? 'a cgroup per kernel' : 'RLIMIT_DATA per process (no cgroup can be made here)'}\n`,
    );
  const first = sandboxed[0];
  if (!first) return 0;
  try {
    await checkSandbox(first);
    return 0;
  } catch (e) {
    // Only mcp's default needs it: the other commands still run, so the check passes.
    const who = terminal.mode === 'off' ? 'omp-eval mcp: ' : '';
    err.write(`${who}${(e as Error).message}\n`);
    return terminal.mode === 'off' ? 0 : 1;
  }
}
