/**
 * `notifications/progress` for a running eval call: cell starts, status events (log(), phase(),
 * %cd, file helpers), notices, and a tail of the output. Status lines go out within
 * STATUS_INTERVAL_MS of each other (several that arrive together share one notification); the
 * output tail at most every TAIL_INTERVAL_MS, so a chatty cell costs the client little. A cell
 * that says nothing still gets a notification every KEEPALIVE_MS: clients time a call out after
 * a while without progress (the Inspector after 60 s), whatever its progress token.
 */
import { type OutputEvent, plainText, type StatusEvent } from './engine.js';
import { supports } from './versions.js';

const STATUS_INTERVAL_MS = 50;
const TAIL_INTERVAL_MS = 500;
/** The longest silence while a call runs (OMP_EVAL_MCP_KEEPALIVE_MS sets another, for tests). */
const KEEPALIVE_MS = 15_000;
/** What the tail shows of the latest output. */
const TAIL_LINES = 5;
const TAIL_CHARS = 400;
/** Status lines kept while waiting to be sent; older ones are counted, not kept. */
const MAX_PENDING = 20;

export interface ProgressParams {
  progressToken: string | number;
  progress: number;
  total?: number;
  message: string;
}

/** One line for a status event: `log: message`, `phase: title`, `cd: /path`, `write: path (12 chars)`. */
function describeStatus(event: StatusEvent): string | undefined {
  const { op, ...rest } = event;
  if (op === 'timeout-pause' || op === 'timeout-resume') return undefined;
  if (op === 'log') return `log: ${String(rest.message ?? '')}`;
  if (op === 'phase') return `phase: ${String(rest.title ?? '')}`;
  const fields = Object.entries(rest)
    .filter(([, v]) => v !== null && v !== undefined && typeof v !== 'object')
    .map(([k, v]) => `${k}=${String(v)}`);
  return fields.length ? `${op}: ${fields.join(' ')}` : op;
}

/** Output's lines in the last state a `\r` left each in (a progress bar's latest). */
function lastStates(text: string): string[] {
  return text
    .replace(/\r\n/g, '\n')
    .split('\n')
    .map((line) => line.split('\r').filter(Boolean).at(-1) ?? '');
}

export class ProgressReporter {
  private count = 0;
  private pending: string[] = [];
  private dropped = 0;
  private tail = '';
  private tailDirty = false;
  private lastStatusAt = Number.NEGATIVE_INFINITY;
  private lastTailAt = Number.NEGATIVE_INFINITY;
  private timer?: NodeJS.Timeout;
  private timerAt = 0;
  private closed = false;
  private keepalive?: NodeJS.Timeout;
  private readonly startedAt = performance.now();
  /** What runs now, for the keepalive's line (`cell 2/3`). */
  private current = 'the call';

  constructor(
    private readonly token: string | number,
    private readonly cellCount: number,
    private readonly send: (params: ProgressParams) => Promise<void>,
    private readonly keepaliveMs = KEEPALIVE_MS,
  ) {
    this.armKeepalive();
  }

  /** (Re)starts the wait for a silence of keepaliveMs, after which the client hears the call still runs. */
  private armKeepalive() {
    clearTimeout(this.keepalive);
    if (this.closed) return;
    this.keepalive = setTimeout(() => {
      const seconds = Math.round((performance.now() - this.startedAt) / 1000);
      void this.emit(`${this.current} still running (${seconds} s)`);
    }, this.keepaliveMs);
  }

  /** An executor event of cell `index` (the executor's onEvent). */
  onEvent(index: number, event: OutputEvent): void {
    if (this.closed) return;
    const where = this.cellCount > 1 ? `cell ${index + 1}/${this.cellCount}` : 'cell';
    switch (event.kind) {
      case 'started':
        this.current = where;
        this.status(`${where} started`);
        break;
      case 'status': {
        const line = describeStatus(event.event);
        if (line) this.status(line);
        break;
      }
      case 'notice':
        this.status(event.text);
        break;
      case 'stdout':
      case 'stderr':
        this.output(event.text);
        break;
      case 'display':
      case 'result':
        if (event.text) this.output(`${event.text}\n`);
        for (const image of event.images) this.status(`image ${image.width ?? '?'}×${image.height ?? '?'}`);
        break;
      default:
        break;
    }
  }

  /** Sends what is pending (status lines only: the result carries the output) and stops. */
  async finish(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.timer);
    clearTimeout(this.keepalive);
    await this.flushStatus();
  }

  private status(line: string) {
    this.pending.push(line);
    if (this.pending.length > MAX_PENDING) {
      this.pending.shift();
      this.dropped++;
    }
    this.schedule();
  }

  private output(text: string) {
    this.tail = (this.tail + text).slice(-4 * TAIL_CHARS);
    this.tailDirty = true;
    this.schedule();
  }

  /** Sets the timer for whichever is due first; a timer already set for sooner stays. */
  private schedule() {
    if (this.closed) return;
    const now = performance.now();
    const statusDue = this.pending.length ? this.lastStatusAt + STATUS_INTERVAL_MS - now : Infinity;
    const tailDue = this.tailDirty ? this.lastTailAt + TAIL_INTERVAL_MS - now : Infinity;
    const at = now + Math.max(0, Math.min(statusDue, tailDue));
    if (this.timer && this.timerAt <= at) return;
    clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, at - now);
  }

  private async flush() {
    if (this.closed) return;
    const now = performance.now();
    const tailDue = this.tailDirty && now - this.lastTailAt >= TAIL_INTERVAL_MS;
    // Status lines that came before the output go out before its tail, whatever their interval:
    // a client reading the tail has seen every step that led to it.
    if (this.pending.length && (tailDue || now - this.lastStatusAt >= STATUS_INTERVAL_MS)) {
      await this.flushStatus();
    }
    if (tailDue) {
      this.tailDirty = false;
      this.lastTailAt = now;
      const lines = lastStates(this.tail.replace(/\n+$/, '')).slice(-TAIL_LINES).join('\n');
      await this.emit(`output: ${lines.slice(-TAIL_CHARS)}`);
    }
    if (this.pending.length || this.tailDirty) this.schedule();
  }

  private async flushStatus() {
    if (!this.pending.length) return;
    const lines = this.dropped
      ? [`(${this.dropped} earlier status lines left out)`, ...this.pending]
      : this.pending;
    this.pending = [];
    this.dropped = 0;
    this.lastStatusAt = performance.now();
    await this.emit(lines.join('\n'));
  }

  private async emit(message: string) {
    this.count++;
    this.armKeepalive();
    try {
      // No escape sequence or control character: a cell must not retitle or clear a client's screen.
      await this.send({ progressToken: this.token, progress: this.count, message: plainText(message) });
    } catch {
      // the client is gone: the call's end takes care of the rest
    }
  }
}

/**
 * The reporter of a call whose request carries a progress token (none without one). A client of
 * 2024-11-05 gets no `message` (it came with 2025-03-26).
 */
export function progressOfRequest(
  extra: {
    _meta?: { progressToken?: string | number };
    sendNotification: (n: {
      method: 'notifications/progress';
      params: Record<string, unknown>;
    }) => Promise<void>;
  },
  cellCount: number,
  version: string | undefined,
  keepaliveMs?: number,
): ProgressReporter | undefined {
  const token = extra._meta?.progressToken;
  if (token === undefined) return undefined;
  const withMessage = supports(version, 'progressMessage');
  return new ProgressReporter(
    token,
    cellCount,
    ({ message, ...counts }) =>
      extra.sendNotification({
        method: 'notifications/progress',
        params: withMessage ? { ...counts, message } : counts,
      }),
    keepaliveMs,
  );
}
