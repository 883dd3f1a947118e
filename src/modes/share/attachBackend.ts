/**
 * The notebook's backend for a followed agent's session (`omp-eval attach`): the agent's calls
 * come from the server's share socket and are queued in the notebook as the agent's cells; the
 * cell runner "runs" each by replaying its events as they arrive, up to the cell's end. A cell
 * typed here is sent to the server, which queues it with the agent's calls, and is replayed the
 * same way; Ctrl-C asks the server to interrupt the running cell.
 */
import {
  type CellResult,
  type Completion,
  cellCompleteness,
  cellResultOf,
  failedResult,
  type Language,
  localCompleteness,
  type OutputEvent,
} from '../../eval/index.js';
import type { AgentCell, CellRun, NotebookBackend } from '../../tui/backend.js';
import type { NotebookKernelState } from '../../tui/state/reducer.js';
import type { ShareConnection } from './client.js';
import type { CellEnd, ServerMessage, SessionInfo } from './protocol.js';

/** Calls of the history a notebook asks for when it attaches. */
export const ATTACH_HISTORY = 10;

interface FollowedCell {
  language: Language;
  events: OutputEvent[];
  end?: CellEnd;
  /** The runner's listener while it replays this cell. */
  sink?: (event: OutputEvent) => void;
  ended?: (end: CellEnd) => void;
}

const key = (call: number, cell: number) => `${call}:${cell}`;

/** A cell's result as the runner needs it (the notebook keeps the output itself). */
function resultOf(index: number, language: Language, end: CellEnd): CellResult {
  return cellResultOf({
    index,
    language,
    status: end.status,
    exitCode: end.status === 'ok' ? 0 : end.status === 'cancelled' ? 130 : 1,
    durationMs: end.durationMs,
    timedOut: end.timedOut === true,
    kernelKilled: end.kernelKilled === true,
    ...(end.started ? { executionCount: 0 } : {}),
    ...(end.ename ? { error: { ename: end.ename, evalue: '', traceback: [] } } : {}),
  });
}

export interface AttachedBackend extends NotebookBackend {
  /** Why the followed session or its server ended, once it did. */
  readonly endedWith?: string;
}

/**
 * What the server said of the followed session, kept until the notebook's runner takes it (also
 * the agents' calls a served notebook shows: src/modes/serve).
 */
export class FollowedSession {
  readonly cells = new Map<string, FollowedCell>();
  agentListener?: (cells: AgentCell[]) => void;
  readonly waitingCalls: AgentCell[][] = [];
  readonly endListeners = new Set<() => void>();
  readonly stateListeners = new Set<(state: NotebookKernelState) => void>();
  /** What the server says between calls (a restart of all the kernels), for the transcript. */
  readonly noticeListeners = new Set<(text: string) => void>();
  /** Said before anyone listened (the last few). */
  readonly waitingNotices: string[] = [];
  private running = 0;
  endedWith?: string;
  /** Cells typed here, sent and not yet started by the server: told the call's number (or why not). */
  readonly typed = new Map<string, (call: number | undefined, problem?: string) => void>();
  private nextRef = 0;

  /** Runs a cell typed here in the followed session: sent, then replayed as the server runs it. */
  async runTyped(run: CellRun, send: (code: string, ref: string) => void): Promise<CellResult> {
    if (this.endedWith !== undefined) return failedResult({ index: 0, language: 'py' }, 0, this.endedWith);
    const ref = String(++this.nextRef);
    const call = await new Promise<number | undefined>((resolve) => {
      this.typed.set(ref, (n, problem) => {
        if (problem) run.onEvent({ kind: 'notice', text: problem });
        resolve(n);
      });
      send(run.code, ref);
    });
    if (call === undefined) return failedResult({ index: 0, language: 'py' }, 0, 'not run');
    return this.replay({ ...run, party: { by: 'person', call, cell: 0, cells: 1 } });
  }

  state(): NotebookKernelState {
    return this.endedWith !== undefined ? 'dead' : this.running ? 'busy' : 'idle';
  }

  private tellState(): void {
    for (const listener of this.stateListeners) listener(this.state());
  }

  onMessage(message: ServerMessage): void {
    switch (message.t) {
      case 'call':
        this.onCall(message);
        return;
      case 'output': {
        const cell = this.cells.get(key(message.call, message.cell));
        if (cell?.sink) cell.sink(message.event);
        else cell?.events.push(message.event);
        return;
      }
      case 'cell': {
        const cell = this.cells.get(key(message.call, message.cell));
        if (!cell) return;
        const { t: _t, call: _c, cell: _i, ...end } = message;
        cell.end = end;
        cell.ended?.(end);
        return;
      }
      case 'callEnd':
        if (this.running) {
          this.running--;
          this.tellState();
        }
        return;
      case 'notice': {
        // (output this notebook could not keep up with: said in the agent's cell being replayed;
        // between calls, in the transcript)
        const replaying = [...this.cells.values()].find((c) => c.sink && !c.end);
        if (replaying?.sink) replaying.sink({ kind: 'notice', text: message.text });
        else if (this.noticeListeners.size)
          for (const listener of this.noticeListeners) listener(message.text);
        else if (this.waitingNotices.push(message.text) > 10) this.waitingNotices.shift();
        return;
      }
      case 'ended':
        this.end(message.reason);
        return;
      case 'error': {
        // (a cell typed here that the server could not take: the oldest waiting one)
        const [ref, waiting] = this.typed.entries().next().value ?? [];
        if (ref !== undefined) {
          this.typed.delete(ref);
          waiting?.(undefined, message.message);
        }
        return;
      }
      default:
        return;
    }
  }

  private onCall(message: Extract<ServerMessage, { t: 'call' }>): void {
    if (!message.history) {
      this.running++;
      this.tellState();
    }
    // A cell typed here: it is already in the notebook, whose runner waits for its events.
    const own = message.ref !== undefined ? this.typed.get(message.ref) : undefined;
    if (own) {
      this.typed.delete(message.ref as string);
      this.cells.set(key(message.call, 0), { language: message.cells[0]?.language ?? 'py', events: [] });
      own(message.call);
      return;
    }
    const batch = message.cells.map((c): AgentCell => {
      this.cells.set(key(message.call, c.index), { language: c.language, events: [] });
      return {
        code: c.code,
        language: c.language,
        ...(c.title ? { title: c.title } : {}),
        party: {
          by: message.by ?? 'agent',
          ...(message.client ? { client: message.client } : {}),
          call: message.call,
          cell: c.index,
          cells: message.cells.length,
        },
      };
    });
    if (this.agentListener) this.agentListener(batch);
    else this.waitingCalls.push(batch);
  }

  end(why: string): void {
    if (this.endedWith !== undefined) return;
    this.endedWith = why;
    this.stopFollowing(why);
    this.tellState();
    const listeners = [...this.endListeners];
    this.endListeners.clear();
    for (const listener of listeners) listener();
  }

  /**
   * The cells shown without their end end now, cancelled, with `why` (the session is gone, or the
   * notebook left it): nothing is left waiting for a message that will not come.
   */
  stopFollowing(why: string): void {
    for (const waiting of this.typed.values()) waiting(undefined, why);
    this.typed.clear();
    this.endCells(why);
  }

  /** The cells of `calls` (all when unset) that have no end yet end now, cancelled: `why` says why. */
  endCells(why: string, calls?: ReadonlySet<number>): void {
    for (const [at, cell] of this.cells) {
      if (cell.end || (calls && !calls.has(Number(at.split(':')[0])))) continue;
      cell.end = {
        status: 'cancelled',
        durationMs: 0,
        started: cell.events.some((e) => e.kind === 'started'),
      };
      if (cell.sink) cell.sink({ kind: 'notice', text: why });
      else cell.events.push({ kind: 'notice', text: why });
      cell.ended?.(cell.end);
    }
  }

  /** Replays an agent's cell: what came so far, then the rest as it comes, up to its end. */
  async replay(run: CellRun & { party: NonNullable<CellRun['party']> }): Promise<CellResult> {
    const { call, cell: index } = run.party;
    const cell = this.cells.get(key(call, index));
    if (!cell) return resultOf(index, 'py', { status: 'skipped', durationMs: 0, started: false });
    for (const event of cell.events.splice(0)) run.onEvent(event);
    const end =
      cell.end ??
      (await new Promise<CellEnd>((resolve) => {
        cell.sink = run.onEvent;
        cell.ended = resolve;
      }));
    this.cells.delete(key(call, index));
    return resultOf(index, cell.language, end);
  }
}

/** A backend over `connection`, which already follows `session` (its messages not yet read). */
export function attachedBackend(connection: ShareConnection, session: SessionInfo): AttachedBackend {
  const followed = new FollowedSession();
  connection.listen(
    (message) => followed.onMessage(message),
    (why) => followed.end(why),
  );
  return {
    get endedWith() {
      return followed.endedWith;
    },
    cwd: session.cwd,
    mode: `following ${session.client ? `${session.client}'s` : "an agent's"} session ${session.name} (${session.id})`,
    language: 'py',
    detaches: true,
    nodeVersion: process.versions.node,
    start: async () => {},
    async runCell(run: CellRun): Promise<CellResult> {
      if (run.party) return followed.replay({ ...run, party: run.party });
      return followed.runTyped(run, (code, ref) => connection.send({ t: 'run', code, ref }));
    },
    interrupt: () => connection.send({ t: 'interrupt' }),
    complete: async (_code, cursor): Promise<Completion> => ({ matches: [], start: cursor, end: cursor }),
    isComplete: (text) => cellCompleteness(text, 'py', async (code, lang) => localCompleteness(code, lang)),
    onBackground: () => () => {},
    onKernelState(listener) {
      listener(followed.state());
      followed.stateListeners.add(listener);
      return () => followed.stateListeners.delete(listener);
    },
    sendInput: () => {},
    restart: async () => {
      throw new Error("a followed agent's session is not restarted from here");
    },
    kernelState: () => followed.state(),
    async dispose() {
      connection.close();
      followed.stopFollowing('the notebook detached; the cell runs on in the agent\u2019s session');
    },
    onAgentCells(listener) {
      followed.agentListener = listener;
      for (const batch of followed.waitingCalls.splice(0)) listener(batch);
      return () => {
        if (followed.agentListener === listener) followed.agentListener = undefined;
      };
    },
    onNotice(listener) {
      followed.noticeListeners.add(listener);
      for (const text of followed.waitingNotices.splice(0)) listener(text);
      return () => followed.noticeListeners.delete(listener);
    },
    onEnded(listener) {
      if (followed.endedWith !== undefined) setImmediate(listener);
      else followed.endListeners.add(listener);
      return () => followed.endListeners.delete(listener);
    },
  };
}
