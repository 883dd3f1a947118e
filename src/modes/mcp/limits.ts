/**
 * Caps over the whole server, every client together: how many sessions and how many kernels may
 * exist at once. `--memory-limit` bounds one kernel; these bound how many there are, so the
 * kernels' memory stays within about maxKernels × the memory limit. Enterprise Gateway's
 * `max_kernels` is the model: a request past a cap gets an error that says what frees room.
 */
import { LANGUAGE_LABEL, type Language } from './engine.js';

/** What a client holds: its named sessions and their kernels (an McpConnection). */
export interface CapHolder {
  /** Names of its sessions (a client counts as one session before its first call: see sessionsInUse). */
  sessionNames(): string[];
  /** Its kernels, running or about to start for a call that runs now. */
  kernelCount(): number;
  /** Its sessions that hold kernels, with their languages, for messages. */
  kernelHolders(): { session: string; languages: Language[] }[];
}

/** A request the caps refuse; its message is the tool's error result. */
export class CapError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CapError';
  }
}

export class ServerCaps {
  private readonly holders = new Set<CapHolder>();

  constructor(
    readonly maxSessions: number,
    readonly maxKernels: number,
  ) {}

  join(holder: CapHolder): void {
    this.holders.add(holder);
  }

  leave(holder: CapHolder): void {
    this.holders.delete(holder);
  }

  /**
   * Sessions in use. A client holds at least one from its start (an HTTP session from its
   * initialize), so that idle clients that never ran a cell are bounded too.
   */
  sessionsInUse(): number {
    let n = 0;
    for (const holder of this.holders) n += Math.max(1, holder.sessionNames().length);
    return n;
  }

  kernelsInUse(): number {
    let n = 0;
    for (const holder of this.holders) n += holder.kernelCount();
    return n;
  }

  /** Throws when `holder` may not open a session `name` besides the ones it has. */
  checkNewSession(holder: CapHolder, name: string): void {
    const mine = holder.sessionNames();
    // A client's first session takes the place the client already holds.
    if (mine.length === 0 || this.sessionsInUse() < this.maxSessions) return;
    const names = mine.map((n) => `"${n}"`).join(', ');
    throw new CapError(
      `Cannot open session "${name}": this server already has ${this.maxSessions} sessions, its cap (--max-sessions ${this.maxSessions}, setting mcp.maxSessions), counting every client's. ` +
        `Use a session you have (${names}), or end one you no longer need with the "restart" tool (language "both", the default): it shuts that session's kernels down and frees its place. ` +
        `Whoever runs the server can raise the cap: omp-eval mcp --max-sessions N.`,
    );
  }

  /** Throws when `starting` new kernels for `holder`'s session `name` would pass the kernel cap. */
  checkNewKernels(holder: CapHolder, name: string, starting: Language[]): void {
    if (!starting.length) return;
    const inUse = this.kernelsInUse();
    if (inUse + starting.length <= this.maxKernels) return;
    const kernels = starting.map((l) => LANGUAGE_LABEL[l]).join(' and ');
    const held = holder
      .kernelHolders()
      .map((h) => `"${h.session}" (${h.languages.map((l) => LANGUAGE_LABEL[l]).join(', ')})`);
    const yours = held.length
      ? `Your sessions with kernels: ${held.join(', ')}. `
      : 'Your sessions hold no kernels: the others are other clients’. ';
    throw new CapError(
      `Cannot start a ${kernels} kernel for session "${name}": this server already runs ${inUse} kernels and its cap is ${this.maxKernels} (--max-kernels ${this.maxKernels}, setting mcp.maxKernels), counting every client's. No cell of this call was run. ` +
        `${yours}Free kernels with the "restart" tool on a session you no longer need (it shuts its kernels down; "language" picks py or js), then call eval again. ` +
        `Whoever runs the server can raise the cap: omp-eval mcp --max-kernels N.`,
    );
  }

  /** Why a new client (an HTTP session) is refused, when it is. */
  newClientRefusal(idleTimeoutS: number): string | undefined {
    if (this.sessionsInUse() < this.maxSessions) return undefined;
    return `This server already has ${this.maxSessions} sessions, its cap (--max-sessions ${this.maxSessions}, setting mcp.maxSessions), and each holds kernels. End a session you no longer need (an HTTP DELETE of its Mcp-Session-Id, or the "restart" tool on a named session), or wait: a session idle for ${idleTimeoutS} s (--idle-timeout) is closed. Whoever runs the server can raise the cap: omp-eval mcp --max-sessions N.`;
  }
}
