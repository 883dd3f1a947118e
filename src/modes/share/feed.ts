/**
 * What a followed MCP session publishes: each eval call as it starts (its cells and code), its
 * cells' output events, each cell's end and the call's end, to every notebook attached to it, and
 * a bounded history of the last calls for a notebook that attaches later. Fan-out never slows
 * the agent: listeners are called synchronously and must not block (the socket side drops what a
 * slow reader cannot take).
 */
import type { CellResult, Language, OutputEvent } from '../../eval/index.js';
import type { CallCell, CellEnd, ServerMessage, SessionInfo } from './protocol.js';

/** Calls kept for a notebook that attaches later. */
const HISTORY_CALLS = 20;
/** Characters of output a kept call holds (text, and images' base64); the rest is counted. */
const HISTORY_CALL_CHARS = 1_000_000;

export type FeedListener = (message: ServerMessage) => void;

interface KeptCell {
  events: OutputEvent[];
  end?: CellEnd;
}

interface KeptCall {
  call: number;
  by?: 'person';
  ref?: string;
  client?: string;
  cells: CallCell[];
  kept: KeptCell[];
  chars: number;
  /** Characters of output left out of the history. */
  dropped: number;
  ended: boolean;
}

/** The size of an event as the history counts it. */
function sizeOf(event: OutputEvent): number {
  switch (event.kind) {
    case 'stdout':
    case 'stderr':
      return event.text.length;
    case 'display':
    case 'result':
      return (
        (event.text?.length ?? 0) +
        (event.ansi?.length ?? 0) +
        event.images.reduce((n, image) => n + image.data.length, 0) +
        JSON.stringify(event.bundle).length
      );
    default:
      return 100;
  }
}

/** How the notebook needs a cell's end (status, time, whether it reached its kernel). */
function cellEnd(result: CellResult): CellEnd {
  return {
    status: result.status,
    durationMs: result.durationMs,
    started: result.status !== 'skipped' && result.executionCount !== undefined,
    ...(result.timedOut ? { timedOut: true } : {}),
    ...(result.kernelKilled ? { kernelKilled: true } : {}),
    ...(result.error ? { ename: result.error.ename } : {}),
  };
}

/** One call as the feed hears it, from its start to its end. */
export interface CallFeed {
  onEvent(cell: number, event: OutputEvent): void;
  cellDone(result: CellResult): void;
  end(): void;
}

/** What a follower may do in the session: run a person's cell (queued with the agent's calls), interrupt. */
export interface FeedController {
  run(code: string, ref: string): Promise<void>;
  /** False when no cell was running. */
  interrupt(): boolean;
}

export interface FeedDescription {
  client?: string;
  languages: Language[];
  transport: string;
}

export class SessionFeed {
  private calls = 0;
  private cellsRun = 0;
  private running = 0;
  private lastActive = Date.now();
  private readonly history: KeptCall[] = [];
  private readonly listeners = new Set<FeedListener>();
  private endedWith?: string;
  /** Set by the session: what followers' run and interrupt requests do. */
  controller?: FeedController;

  constructor(
    readonly id: string,
    readonly name: string,
    readonly cwd: string,
    /** What `attach --list` says of the session (set anew by a session that takes the feed over). */
    public describe: () => FeedDescription,
    private readonly onEnd: (feed: SessionFeed) => void,
  ) {}

  get ended(): boolean {
    return this.endedWith !== undefined;
  }

  info(): SessionInfo {
    const { client, languages, transport } = this.describe();
    return {
      id: this.id,
      name: this.name,
      ...(client ? { client } : {}),
      cwd: this.cwd,
      languages,
      calls: this.calls,
      cellsRun: this.cellsRun,
      idleMs: this.running ? 0 : Date.now() - this.lastActive,
      busy: this.running > 0,
      transport,
    };
  }

  private send(message: ServerMessage): void {
    for (const listener of this.listeners) listener(message);
  }

  /** A call starts: its cells go to every follower, and into the history. */
  callStarted(cells: CallCell[], person?: { ref: string }): CallFeed {
    const call = ++this.calls;
    this.running++;
    const client = person ? undefined : this.describe().client;
    const who = person ? { by: 'person' as const, ref: person.ref } : {};
    const kept: KeptCall = {
      call,
      ...who,
      ...(client ? { client } : {}),
      cells,
      kept: cells.map(() => ({ events: [] })),
      chars: 0,
      dropped: 0,
      ended: false,
    };
    this.history.push(kept);
    if (this.history.length > HISTORY_CALLS) this.history.shift();
    this.send({ t: 'call', call, ...who, ...(client ? { client } : {}), cells });
    let over = false;
    return {
      onEvent: (cell, event) => {
        if (this.listeners.size) this.send({ t: 'output', call, cell, event });
        const size = sizeOf(event);
        if (over || kept.chars + size > HISTORY_CALL_CHARS) {
          over = true;
          kept.dropped += size;
          return;
        }
        kept.chars += size;
        kept.kept[cell]?.events.push(event);
      },
      cellDone: (result) => {
        const end = cellEnd(result);
        if (end.started) this.cellsRun++;
        const at = kept.kept[result.index];
        if (at) at.end = end;
        this.send({ t: 'cell', call, cell: result.index, ...end });
      },
      end: () => {
        if (kept.ended) return;
        kept.ended = true;
        this.running--;
        this.lastActive = Date.now();
        this.send({ t: 'callEnd', call });
      },
    };
  }

  /**
   * Sends the last `historyCalls` calls to `listener` (a call still running: what it did so far),
   * then every event as it comes. Returns an unsubscribe.
   */
  subscribe(listener: FeedListener, historyCalls = HISTORY_CALLS): () => void {
    if (this.endedWith !== undefined) {
      listener({ t: 'ended', reason: this.endedWith });
      return () => {};
    }
    const calls = historyCalls ? this.history.slice(-historyCalls) : [];
    for (const kept of calls) {
      listener({
        t: 'call',
        call: kept.call,
        ...(kept.by ? { by: kept.by } : {}),
        ...(kept.client ? { client: kept.client } : {}),
        cells: kept.cells,
        history: true,
      });
      kept.kept.forEach((cell, index) => {
        for (const event of cell.events) listener({ t: 'output', call: kept.call, cell: index, event });
        if (kept.dropped && cell.end && !kept.kept.slice(index + 1).some((c) => c.end))
          listener({
            t: 'output',
            call: kept.call,
            cell: index,
            event: {
              kind: 'notice',
              text: `(${kept.dropped.toLocaleString('en')} characters of this call's output are left out of the history)`,
            },
          });
        if (cell.end) listener({ t: 'cell', call: kept.call, cell: index, ...cell.end });
      });
      if (kept.ended) listener({ t: 'callEnd', call: kept.call });
    }
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Something the followers are told between calls (a restart of all the session's kernels). */
  notice(text: string): void {
    this.send({ t: 'notice', text });
  }

  /** The session is gone (its kernels shut down): followers are told why and let go. */
  end(reason: string): void {
    if (this.endedWith !== undefined) return;
    this.endedWith = reason;
    this.send({ t: 'ended', reason });
    this.listeners.clear();
    this.onEnd(this);
  }
}

/** The sessions of this process that can be followed. */
export class FeedRegistry {
  private next = 0;
  private readonly feeds = new Map<string, SessionFeed>();
  /** How the server speaks to its clients: `stdio` or `http` (set by the command). */
  transport = 'stdio';

  open(name: string, cwd: string, describe: () => Omit<FeedDescription, 'transport'>): SessionFeed {
    const id = `${process.pid}/${++this.next}`;
    const feed = new SessionFeed(id, name, cwd, this.described(describe), (f) => this.feeds.delete(f.id));
    this.feeds.set(id, feed);
    return feed;
  }

  /** A session's description with the server's transport. */
  described(describe: () => Omit<FeedDescription, 'transport'>): () => FeedDescription {
    return () => ({ ...describe(), transport: this.transport });
  }

  get(id: string): SessionFeed | undefined {
    return this.feeds.get(id);
  }

  all(): SessionFeed[] {
    return [...this.feeds.values()];
  }

  /** Ends every session's feed (the server is going away). */
  endAll(reason: string): void {
    for (const feed of this.all()) feed.end(reason);
  }
}

/** This process's followable sessions (one MCP server a process). */
export const feeds = new FeedRegistry();
