/**
 * The host's end of one kernel process: its channels (frames in, requests out, the raw fd 1/fd 2
 * output, the bridge), signals to it and its group, and its end. Frames and raw output reach the
 * kernel client in the order the kernel wrote them (rawDemux.ts merges the three pipes at the
 * runner's barriers), frames already validated and checked for the kernel's key.
 */
import type { Readable, Writable } from 'node:stream';
import type { KernelProcess } from '../launch/spawn.js';
import type { Logger } from '../logger.js';
import { joinSmall } from '../output/joinSmall.js';
import { startHostGuard, stopHostGuard, trackLive } from '../process/lifetime.js';
import { bootTicks, signalDescendants, signalGroup } from '../process/processGroup.js';
import type { BridgeHandler } from '../protocol/index.js';
import {
  encodeRequest,
  type Frame,
  LineSplitter,
  type ParsedLine,
  parseFrameLine,
  type Request,
} from '../protocol/index.js';
import { BridgeServer } from './bridgeServer.js';
import { OutputMerge, type RawStream } from './rawDemux.js';

const STDERR_TAIL_CHARS = 8_192;
/** After the process exits, its pipes get this long to drain (a forked child may hold them). */
const EXIT_DRAIN_MS = 250;
/** How long a barrier waits for its other parts (a marker written to a moved fd never comes). */
const RAW_SYNC_MS = 1_000;
/**
 * Raw text batched into one frame at most (the rest goes on in the next): about one pipe read. A
 * larger batch joined the reads into one long string, a copy of the whole output on its way.
 */
const RAW_BATCH_CHARS = 1 << 16;
/** A read at least this long goes on in a frame of its own, not joined with the reads around it. */
const RAW_DIRECT_CHARS = 1 << 13;
/** Raw text of a stream that keeps coming goes out at most this often (ms). */
const RAW_INTERVAL_MS = 20;

export interface ChannelOptions {
  /** The kernel's name and label, for logs. */
  name: string;
  label: string;
  logger: Logger;
  trace: boolean;
  bridge?: BridgeHandler;
  /** How long a barrier waits for its other parts (default 1 s). */
  rawSyncMs?: number;
  /** Raw text of a stream that keeps coming goes out at most this often (default 20 ms). */
  rawIntervalMs?: number;
}

export interface ChannelHandlers {
  /** Every frame, in order (raw output as stdout/stderr frames). */
  onFrame(frame: Frame): void;
  /** The cell raw output belongs to: the running cell once it started, else null (background). */
  rawOwner(): string | null;
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
  /** The last of what the process wrote to its stderr (without markers). */
  stderrTail = '';
  /** When the process ended (bootTicks()): its group's id may be another's after that. */
  exitedAt?: number;
  private readonly splitter = new LineSplitter();
  private readonly merge: OutputMerge;
  private readonly bridge?: BridgeServer;
  private readonly guard;
  private readonly untrack: () => void;
  /** The barrier the sync timer watches, and the timer. */
  private timedBarrier?: number;
  private syncTimer?: NodeJS.Timeout;
  /** Raw text of one stream and owner, passed on as one frame once this turn's reads are done. */
  private pendingRaw?: { stream: RawStream; id: string | null; parts: string[]; chars: number };
  private cancelRawFlush?: () => void;
  /** When raw text last went out (performance.now()). */
  private lastRawFlush = -Infinity;
  private readonly keyInTrace: RegExp;
  private pauses = 0;
  /** Requests written before the kernel may read them (see holdRequests). */
  private held?: { lines: string[]; end: boolean };

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
        this.exitedAt = bootTicks();
        setTimeout(() => {
          for (const stream of child.stdio) stream?.destroy();
        }, EXIT_DRAIN_MS).unref();
      });
    });
    this.spawnFailed = new Promise<never>((_, reject) => {
      child.once('error', (err) => reject(new Error(`Could not start ${proc.executable}: ${err.message}`)));
      proc.requestsReady?.catch((err: unknown) =>
        reject(new Error(`Could not start ${proc.executable}: ${(err as Error).message}`)),
      );
    });
    if (proc.requestsReady) this.holdRequests(proc.requestsReady);
    this.spawnFailed.catch(() => {});
    proc.requests.on('error', () => {}); // EPIPE after the kernel died is reported through 'close'
    this.keyInTrace = new RegExp(`"key": ?"${proc.frameKey.replace(/\W/g, '')}", ?`);
    this.merge = new OutputMerge(proc.frameKey, {
      text: (stream, text) => this.emitRaw(stream, text),
      frame: (frame) => {
        this.flushRaw();
        this.handlers.onFrame(frame);
      },
    });
    proc.frames.on('data', (chunk: Buffer) => this.onFrameData(chunk));
    this.readRaw('stdout', proc.rawStdout);
    this.readRaw('stderr', proc.stderr);
    if (proc.bridge) this.bridge = new BridgeServer(proc.bridge, opts.bridge, opts.logger);
  }

  get pid(): number | undefined {
    return this.proc.child.pid;
  }

  write(request: Request): void {
    const line = encodeRequest(request);
    if (this.opts.trace) this.opts.logger.trace(`[omp-eval ${this.opts.name} ->] ${line.slice(0, 2000)}`);
    if (this.held) this.held.lines.push(line);
    else this.writeLine(line);
  }

  private writeLine(line: string): void {
    const requests: Writable = this.proc.requests;
    if (!requests.destroyed && requests.writable) requests.write(line);
  }

  /** No more requests: the runner exits once it has read the rest. */
  endRequests(): void {
    if (this.held) this.held.end = true;
    else this.proc.requests.end();
  }

  /**
   * Requests wait until `ready`, then go in order. If it rejects, none goes: the kernel is killed
   * (spawnFailed says why).
   */
  private holdRequests(ready: Promise<void>): void {
    const held: { lines: string[]; end: boolean } = { lines: [], end: false };
    this.held = held;
    ready.then(
      () => {
        this.held = undefined;
        for (const line of held.lines) this.writeLine(line);
        if (held.end) this.proc.requests.end();
      },
      () => {
        this.held = undefined;
        this.killGroup('SIGKILL');
      },
    );
  }

  /** Stops reading the kernel's output (it blocks on its writes) until resume(). Counted. */
  pause(): void {
    if (this.pauses++ === 0) {
      for (const stream of this.outputs()) stream.pause();
      this.watchBarrier(); // a paused host is not a lost marker
    }
  }

  resume(): void {
    if (this.pauses > 0 && --this.pauses === 0) {
      for (const stream of this.outputs()) stream.resume();
      this.watchBarrier();
    }
  }

  private outputs(): Readable[] {
    const { frames, rawStdout, stderr } = this.proc;
    return [frames, rawStdout, stderr];
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
    return pid ? signalGroup(pid, signal, this.exitedAt) : false;
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
   * The process ended: whatever the merge still holds goes out, and the bridge and the host
   * guard stop. Returns an unterminated last frame line, if any.
   */
  finishStreams(): string | undefined {
    this.untrack();
    this.merge.finish();
    this.flushRaw();
    clearTimeout(this.syncTimer);
    stopHostGuard(this.guard);
    this.bridge?.close();
    return this.splitter.end();
  }

  private readRaw(stream: RawStream, readable: Readable) {
    readable.on('data', (chunk: Buffer) => {
      this.merge.raw(stream, chunk);
      this.watchBarrier();
    });
    readable.once('end', () => {
      this.merge.endStream(stream);
      this.watchBarrier();
    });
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
      if (!line.trim()) continue;
      if (trace) logger.trace(`[omp-eval ${name} <-] ${line.replace(this.keyInTrace, '').slice(0, 2000)}`);
      const parsed = this.checkKey(parseFrameLine(line), line);
      if (parsed.kind === 'noise') {
        logger.warn(
          `${label} kernel ${name} sent a line that is not a frame (${parsed.reason}): ${line.slice(0, 200)}`,
        );
      } else {
        this.merge.frame(parsed.frame);
      }
    }
    this.watchBarrier();
  }

  /** A frame counts only with the kernel's key, which is taken off it. */
  private checkKey(parsed: ParsedLine, line: string): ParsedLine {
    if (parsed.kind === 'noise') return parsed;
    const { key: given, ...frame } = parsed.frame as Frame & { key?: unknown };
    if (given !== this.proc.frameKey)
      return { kind: 'noise', line, reason: 'a frame without the kernel key (written by user code?)' };
    return { kind: 'frame', frame: frame as Frame };
  }

  /**
   * Raw output, in order: the running cell's, or background output between cells. Text read in
   * one turn of the event loop goes on as one frame (a line-buffered burst comes in many reads);
   * anything else that goes on first sends it.
   */
  private emitRaw(stream: RawStream, data: string) {
    if (stream === 'stderr') this.stderrTail = (this.stderrTail + data).slice(-STDERR_TAIL_CHARS);
    if (this.opts.trace && stream === 'stderr')
      this.opts.logger.trace(`[omp-eval ${this.opts.name} stderr] ${data}`);
    const id = this.handlers.rawOwner();
    const pending = this.pendingRaw;
    if (pending && (pending.stream !== stream || pending.id !== id)) this.flushRaw();
    if (!this.pendingRaw) {
      this.pendingRaw = { stream, id, parts: [], chars: 0 };
      // The first text after a quiet spell goes out once this turn's reads are done; a stream
      // that keeps coming goes out at most every RAW_INTERVAL_MS (a print loop: a few frames,
      // not one per pipe read).
      const wait = this.lastRawFlush + (this.opts.rawIntervalMs ?? RAW_INTERVAL_MS) - performance.now();
      if (wait > 0) {
        const timer = setTimeout(() => this.flushRaw(), wait);
        this.cancelRawFlush = () => clearTimeout(timer);
      } else {
        const immediate = setImmediate(() => this.flushRaw());
        this.cancelRawFlush = () => clearImmediate(immediate);
      }
    }
    const batch = this.pendingRaw as NonNullable<typeof this.pendingRaw>;
    batch.parts.push(data);
    batch.chars += data.length;
    if (batch.chars >= RAW_BATCH_CHARS) this.flushRaw();
  }

  private flushRaw() {
    const batch = this.pendingRaw;
    if (!batch) return;
    this.pendingRaw = undefined;
    this.cancelRawFlush?.();
    this.lastRawFlush = performance.now();
    // Small reads (a line-buffered burst) go on joined; a large read goes on as it is, in its own
    // frame: joining it would copy the whole output of a cell that prints fast once more.
    joinSmall(batch.parts, RAW_DIRECT_CHARS, (data) =>
      this.handlers.onFrame({ type: batch.stream, id: batch.id, data }),
    );
  }

  /**
   * A barrier waits at most rawSyncMs for its other parts (a marker written to a descriptor a
   * cell moved never comes); then what it held goes on.
   */
  private watchBarrier() {
    const pending = this.pauses ? undefined : this.merge.pending;
    if (pending === this.timedBarrier) return;
    clearTimeout(this.syncTimer);
    this.timedBarrier = pending;
    if (pending === undefined) return;
    this.syncTimer = setTimeout(() => {
      this.timedBarrier = undefined;
      this.merge.force();
      this.watchBarrier();
    }, this.opts.rawSyncMs ?? RAW_SYNC_MS);
    this.syncTimer.unref();
  }
}
