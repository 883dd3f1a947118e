/**
 * A kernel process's descriptors (launch/spawn.ts describes each): fd 0 /dev/null, fds 1-5 pipes,
 * the same for both languages and for a process spawned from a recipe (launch/recipe.ts). Here,
 * below the launch and the sandbox, as are the names of the runner cache and the code cache,
 * which the sandbox keeps read-only.
 */
export const KERNEL_STDIO = ['ignore', 'pipe', 'pipe', 'pipe', 'pipe', 'pipe'] as const;
/** The bridge's socket (agent(), completion()), named to the runner in $OMP_BRIDGE_FD. */
export const BRIDGE_FD = 5;
/** The runner cache's name under the system's temp directory (privateName makes it per user). */
export const RUNNER_CACHE = 'omp-python-runner';
/** The code cache's name there (launch/codeCache.ts: V8's data that `run` and `tool` execute). */
export const CODE_CACHE = 'omp-eval-code-cache';
