/**
 * What a sandboxed kernel may do: its mode, network, extra writable directories and memory limit,
 * and how each is named in messages, on the status line and by `setup python --check`.
 */

export type SandboxMode = 'off' | 'read-only' | 'workspace-write';

const SANDBOX_MODES: readonly SandboxMode[] = ['off', 'read-only', 'workspace-write'];

/** The memory limit of a sandboxed kernel when none is set (0 sets none). */
const DEFAULT_MEMORY_LIMIT_MB = 2048;

export interface SandboxSettings {
  mode: SandboxMode;
  /** Network namespaces are shared with the host (otherwise the kernel has loopback only). */
  allowNetwork: boolean;
  /** Directories writable besides the cwd (workspace-write) and the kernel's temp dir. */
  writableRoots: readonly string[];
  /** Paths the sandbox hides by default (credentials: places.ts) that the user opened. */
  allowRead?: readonly string[];
  /**
   * Set by the engine, not the user: folders inside hidden ones the kernel may read (its
   * executor's artifacts, within the user's artifacts folder, which is hidden).
   */
  visible?: readonly string[];
  /** Memory of the kernel and its children, in MB; unset or 0 for no limit. */
  memoryLimitMb?: number;
  /** Processes (threads included) the kernel may have at once (sandbox.ts: 1024 by default). */
  pidsLimit?: number;
  /** How the memory limit is enforced: a cgroup where one can be made (auto), else rlimits. */
  memoryMethod?: 'auto' | 'cgroup' | 'rlimit';
}

export const SANDBOX_OFF: SandboxSettings = { mode: 'off', allowNetwork: false, writableRoots: [] };

/** The environment variable that sets the sandbox mode where no setting does (tests use it). */
const SANDBOX_ENV = 'OMP_EVAL_SANDBOX';

export class SandboxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SandboxError';
  }
}

function isSandboxMode(value: unknown): value is SandboxMode {
  return typeof value === 'string' && (SANDBOX_MODES as readonly string[]).includes(value);
}

/** The mode $OMP_EVAL_SANDBOX names, or undefined when it is unset; anything else is an error. */
function sandboxModeFromEnv(env: NodeJS.ProcessEnv = process.env): SandboxMode | undefined {
  const value = env[SANDBOX_ENV]?.trim();
  if (!value) return undefined;
  if (!isSandboxMode(value)) {
    throw new SandboxError(
      `${SANDBOX_ENV} must be one of ${SANDBOX_MODES.join(', ')}, got ${JSON.stringify(value)}`,
    );
  }
  return value;
}

/** The sandbox of a kernel started without one: $OMP_EVAL_SANDBOX's mode, else off. */
export function sandboxFromEnv(env: NodeJS.ProcessEnv = process.env): SandboxSettings {
  const mode = sandboxModeFromEnv(env) ?? 'off';
  return mode === 'off' ? SANDBOX_OFF : { ...SANDBOX_OFF, mode };
}

/** The memory limit in force (the default applies to sandboxed kernels only). */
export function memoryLimitOf(s: SandboxSettings): number | undefined {
  const limit = s.memoryLimitMb ?? (s.mode === 'off' ? undefined : DEFAULT_MEMORY_LIMIT_MB);
  return limit ? limit : undefined;
}

/** "workspace-write (network off, memory 2048 MB)", for the status line and messages. */
export function describeSandbox(s: SandboxSettings): string {
  const limit = memoryLimitOf(s);
  const memory = limit ? `memory ${limit} MB` : undefined;
  if (s.mode === 'off') return memory ? `off (${memory})` : 'off';
  const parts = [s.allowNetwork ? 'network on' : 'network off'];
  if (s.writableRoots.length) parts.push(`+${s.writableRoots.length} writable`);
  if (memory) parts.push(memory);
  return `${s.mode} (${parts.join(', ')})`;
}

/** The sandbox settings among the engine's settings. */
export interface SandboxSettingKeys {
  'sandbox.mode'?: SandboxMode;
  'sandbox.allowNetwork': boolean;
  'sandbox.writableRoots': string[];
  'sandbox.allowRead'?: string[];
  'sandbox.memoryLimitMb'?: number;
}

/**
 * The sandbox the settings ask for: `sandbox.mode`, else $OMP_EVAL_SANDBOX, else `fallback`
 * (the front end's default: workspace-write for `omp-eval mcp`, off for a person at a terminal).
 */
export function sandboxOf(
  settings: SandboxSettingKeys,
  env: NodeJS.ProcessEnv = process.env,
  fallback: SandboxMode = 'off',
): SandboxSettings {
  const limit = settings['sandbox.memoryLimitMb'];
  const allowRead = settings['sandbox.allowRead'];
  return {
    mode: settings['sandbox.mode'] ?? sandboxModeFromEnv(env) ?? fallback,
    allowNetwork: settings['sandbox.allowNetwork'],
    writableRoots: settings['sandbox.writableRoots'],
    ...(allowRead?.length ? { allowRead } : {}),
    ...(limit !== undefined ? { memoryLimitMb: limit } : {}),
  };
}

/**
 * The status line's word on the sandbox: "sandbox workspace-write" (+network); none when off.
 * With the Python cells on a Jupyter server (`jupyter`: its label), the sandbox holds the
 * JavaScript cells only, and the label says so.
 */
export function sandboxLabel(s: SandboxSettings, jupyter?: string): string | undefined {
  if (s.mode === 'off') return jupyter ? `py on ${jupyter}, unsandboxed` : undefined;
  const label = `sandbox ${s.mode}${s.allowNetwork ? ' +network' : ''}`;
  return jupyter ? `${label} for js · py on ${jupyter}, unsandboxed` : label;
}

/** What code in the sandbox may do, in a sentence or two (an agent's tool description). */
export function sandboxSummary(s: SandboxSettings): string | undefined {
  if (s.mode === 'off') return undefined;
  const places = [
    ...(s.mode === 'workspace-write' ? ['the working directory'] : []),
    '$TMPDIR (a temp directory of its own)',
    ...s.writableRoots,
  ];
  const limit = memoryLimitOf(s);
  return [
    `Sandbox (${s.mode}): cells and the processes they start can write only in ${places.join(', ')};`,
    s.allowNetwork ? 'the network is on;' : 'the network is off (no connections, no name lookups);',
    limit
      ? `the kernel and its processes may use ${limit} MB, beyond which the kernel is stopped and its state lost.`
      : 'memory is not limited.',
    'Errors caused by the sandbox say so. Only the user can change it.',
  ].join(' ');
}
