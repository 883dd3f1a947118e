/**
 * The host's end of one kernel process: its channels (frames in, requests out, a js kernel's raw
 * fd 1/fd 2 output, the Python bridge), signals to it and its group, and its end. Frames reach
 * the kernel client in order, already validated; a js `done` waits here until the end-of-cell
 * markers on the raw streams came through (rawDemux.ts).
 */
import type { Readable, Writable } from 'node:stream';
import type { Logger } from '../logger.js';
import type { BridgeHandler } from '../protocol/index.js';
import {
  type DoneFrame,
  encodeRequest,
  type Frame,
  LineSplitter,
  type ParsedLine,
  parseFrameLine,
  type Request,
} from '../protocol/index.js';
import { BridgeServer } from './bridgeServer.js';
import { startHostGuard, stopHostGuard, trackLive } from './lifetime.js';
import { signalDescendants, signalGroup } from './processGroup.js';
import { RawOutputDemux, type RawStream } from './rawDemux.js';
import type { KernelProcess } from './spawn.js';

const STDERR_TAIL_CHARS = 8_192;
/** After the process exits, its pipes get this long to drain (a forked child may hold them). */
const EXIT_DRAIN_MS = 250;
/** How long a js `done` waits for the end-of-cell markers on fd 1 and fd 2. */
const RAW_SYNC_MS = 1_000;

export interface ChannelOptions {
  /** The kernel's name and label, for logs. */
  name: string;
  label: string;
  logger: Logger;
  trace: boolean;
  bridge?: BridgeHandler;
  /** How long a js `done` waits for the end-of-cell markers (default 1 s). */
  rawSyncMs?: number;
}

export interface ChannelHandlers {
  /** Every frame, in order (raw output as stdout/stderr frames). */
  onFrame(frame: Frame): void;
  /**
   * The cell raw output belongs to: the running cell once it started, null between cells
   * (background output), undefined while a cell was sent but its `started` frame has not been
   * read yet (fd 1 may be read before fd 3): such output waits for releaseRaw().
   */
  rawOwner(): string | null | undefined;
  /** The frame stream broke (a frame over the size cap): nothing later can be trusted. */
  onProtocolError(message: string): void;
}

export interface ProcessEnd {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export class KernelChannel {
  /** Settles when the process ended and its pipes were drained (or given up on). */
  readonly closed: Promise<ProcessEnd>;
  /** Rejects when the process could not be spawned. */
  readonly spawnFailed: Promise<never>;
  /** The last of what the process wrote to its own stderr (js: without markers). */
  stderrTail = '';
  private readonly splitter = new LineSplitter();
  private readonly raw?: RawOutputDemux;
  private readonly bridge?: BridgeServer;
  private readonly guard;
  private readonly untrack: () => void;
  private heldDone?: { frame: DoneFrame; timer: NodeJS.Timeout };
  private heldRaw: { stream: RawStream; data: string }[] = [];
  private pauses = 0;

  constructor(
    readonly proc: KernelProcess,
    private readonly handlers: ChannelHandlers,
    private readonly opts: ChannelOptions,
  ) {
    const { child } = proc;
    this.untrack = trackLive(this);
    this.guard = startHostGuard(child.pid);
    this.closed = new Promise<ProcessEnd>((resolve) => {
      child.once('close', (code, signal) =>
        resolve(proc.sandbox?.processEnd(code, signal) ?? { code, signal }),
      );
      // 'close' waits for every copy of the pipes; a process the kernel forked may hold them
      // long after the kernel died. Give the pipes a moment to drain, then stop waiting.
      child.once('exit', () => {
        setTimeout(() => {
          for (const stream of child.stdio) stream?.destroy();
        }, EXIT_DRAIN_MS).unref();
      });
    });
    this.spawnFailed = new Promise<never>((_, reject) => {
      child.once('error', (err) => reject(new Error(`Could not start ${proc.executable}: ${err.message}`)));
    });
    this.spawnFailed.catch(() => {});
    proc.requests.on('error', () => {}); // EPIPE after the kernel died is reported through 'close'
    proc.frames.on('data', (chunk: Buffer) => this.onFrameData(chunk));
    if (proc.syncToken !== undefined && proc.rawStdout) {
      this.raw = new RawOutputDemux(proc.syncToken);
      proc.rawStdout.setEncoding('utf8');
      proc.rawStdout.on('data', (text: string) => this.onRawOutput('stdout', text));
    }
    proc.stderr.setEncoding('utf8');
    proc.stderr.on('data', (text: string) => this.onStderr(text));
    if (proc.bridge) this.bridge = new BridgeServer(proc.bridge, opts.bridge, opts.logger);
  }

  get pid(): number | undefined {
    return this.proc.child.pid;
  }

  write(request: Request): void {
    const line = encodeRequest(request);
    if (this.opts.trace) this.opts.logger.trace(`[omp-eval ${this.opts.name} ->] ${line.slice(0, 2000)}`);
    const requests: Writable = this.proc.requests;
    if (!requests.destroyed && requests.writable) requests.write(line);
  }

  /** No more requests: the runner exits once it has read the rest. */
  endRequests(): void {
    this.proc.requests.end();
  }

  /** Stops reading the kernel's output (it blocks on its writes) until resume(). Counted. */
  pause(): void {
    if (this.pauses++ === 0) for (const stream of this.outputs()) stream.pause();
  }

  resume(): void {
    if (this.pauses > 0 && --this.pauses === 0) for (const stream of this.outputs()) stream.resume();
  }

  private outputs(): Readable[] {
    const { frames, rawStdout, stderr } = this.proc;
    return rawStdout ? [frames, rawStdout, stderr] : [frames];
  }

  /** The runner's pid on the host (in a sandbox, bwrap's pid is not the runner's). */
  get runnerPid(): number | undefined {
    return this.proc.sandbox ? this.proc.sandbox.runnerPid(this.pid) : this.pid;
  }

  signalRunner(signal: NodeJS.Signals): void {
    const pid = this.runnerPid;
    try {
      if (pid !== undefined && pid !== this.pid) process.kill(pid, signal);
      else this.proc.child.kill(signal);
    } catch {
      // already gone
    }
  }

  /** Signals the runner's live descendants (a js runner blocked in execSync() waits for them). */
  signalDescendants(signal: NodeJS.Signals): void {
    const pid = this.runnerPid;
    if (pid) signalDescendants(pid, signal);
  }

  killGroup(signal: NodeJS.Signals): boolean {
    const pid = this.pid;
    return pid ? signalGroup(pid, signal) : false;
  }

  /** SIGKILL to the kernel's whole group, now (for the host's last moments). */
  killNow(): void {
    this.killGroup('SIGKILL');
    stopHostGuard(this.guard);
  }

  /** Answers the running cell's bridge calls with a cancellation. */
  cancelBridgeCalls(cell: string): void {
    this.bridge?.cancel(cell);
  }

  /**
   * The process ended: what the raw streams held back is output, a held `done` is released, and
   * the bridge and the host guard stop. Returns an unterminated last frame line, if any.
   */
  finishStreams(): string | undefined {
    this.untrack();
    for (const stream of ['stdout', 'stderr'] as const) this.emitRaw(stream, this.raw?.end(stream) ?? '');
    this.releaseHeldDone(true);
    stopHostGuard(this.guard);
    this.bridge?.close();
    return this.splitter.end();
  }

  private onStderr(text: string) {
    if (this.opts.trace) this.opts.logger.trace(`[omp-eval ${this.opts.name} stderr] ${text}`);
    // js: the tail is kept by emitRaw, without the end-of-cell markers
    if (this.raw) this.onRawOutput('stderr', text);
    else this.stderrTail = (this.stderrTail + text).slice(-STDERR_TAIL_CHARS);
  }

  private onFrameData(chunk: Buffer) {
    let lines: string[];
    try {
      lines = this.splitter.push(chunk);
    } catch (err) {
      this.handlers.onProtocolError((err as Error).message);
      return;
    }
    const { logger, trace, name, label } = this.opts;
    for (const line of lines) {
      if (trace) logger.trace(`[omp-eval ${name} <-] ${line.slice(0, 2000)}`);
      if (!line.trim()) continue;
      const parsed = this.checkKey(parseFrameLine(line), line);
      if (parsed.kind === 'noise') {
        logger.warn(
          `${label} kernel ${name} sent a line that is not a frame (${parsed.reason}): ${line.slice(0, 200)}`,
        );
      } else if (parsed.frame.type === 'done' && parsed.frame.rawSync === true) {
        // Wait for the raw streams to catch up (bounded: a marker can be lost to a closed fd).
        this.heldDone = {
          frame: parsed.frame,
          timer: setTimeout(() => this.releaseHeldDone(true), this.opts.rawSyncMs ?? RAW_SYNC_MS),
        };
        this.releaseHeldDone();
      } else {
        this.handlers.onFrame(parsed.frame);
      }
    }
  }

  /** A frame of a keyed channel counts only with the kernel's key, which is taken off it. */
  private checkKey(parsed: ParsedLine, line: string): ParsedLine {
    const key = this.proc.frameKey;
    if (key === undefined || parsed.kind === 'noise') return parsed;
    const { key: given, ...frame } = parsed.frame as Frame & { key?: unknown };
    if (given !== key)
      return { kind: 'noise', line, reason: 'a frame without the kernel key (written by user code?)' };
    return { kind: 'frame', frame: frame as Frame };
  }

  /** What the js process wrote to fd 1 or fd 2 itself: the running cell's, markers taken out. */
  private onRawOutput(stream: RawStream, data: string) {
    this.emitRaw(stream, this.raw?.push(stream, data) ?? data);
    this.releaseHeldDone();
  }

  private emitRaw(stream: RawStream, data: string) {
    if (!data) return;
    if (stream === 'stderr') this.stderrTail = (this.stderrTail + data).slice(-STDERR_TAIL_CHARS);
    const owner = this.handlers.rawOwner();
    if (owner === undefined) this.heldRaw.push({ stream, data });
    else this.handlers.onFrame({ type: stream, id: owner, data });
  }

  /** Raw output that waited for the running cell's `started` goes on now (to its owner then). */
  releaseRaw(): void {
    const held = this.heldRaw;
    this.heldRaw = [];
    for (const { stream, data } of held) {
      this.handlers.onFrame({ type: stream, id: this.handlers.rawOwner() ?? null, data });
    }
  }

  private releaseHeldDone(force = false) {
    const held = this.heldDone;
    if (!held) return;
    const id = held.frame.id;
    if (!force && !this.raw?.synced(id)) return;
    this.raw?.forget(id);
    clearTimeout(held.timer);
    this.heldDone = undefined;
    this.handlers.onFrame(held.frame);
  }
}
