/**
 * A kernel's output arrives on three pipes: frames (fd 3), raw stdout (fd 1) and raw stderr
 * (fd 2), each read whenever it has data. The runner writes ordering markers into the raw streams
 * (protocol/markers.ts); this module finds them, however the bytes were cut into chunks, and
 * merges the three streams back into the order they were written in: at each barrier, what came
 * before it on every stream goes out before what came after it on any. Pure: no I/O, no timers
 * (the channel forces a barrier whose other half never comes).
 */
import { StringDecoder } from 'node:string_decoder';
import type { Frame } from '../protocol/index.js';
import { parseSyncMarkBody, SYNC_MARK_END, SYNC_MARK_START, type SyncMark } from '../protocol/index.js';

export type RawStream = 'stdout' | 'stderr';
const RAW_STREAMS: readonly RawStream[] = ['stdout', 'stderr'];

/** What one raw stream carries: text, or a marker in it. */
export type RawItem = { text: string } | { mark: SyncMark };

const END_BYTE = SYNC_MARK_END.charCodeAt(0);
/** A marker's body (`f123`) is short: a prefix followed by more bytes without a NUL is text. */
const MAX_BODY_BYTES = 24;

/**
 * One raw stream: bytes in, its text and markers out, in order. The search is on bytes, so a
 * marker that another writer's bytes surround (a thread, a child) never breaks a character in
 * two: the decoder keeps its state across the marker.
 */
export class RawStreamDemux {
  private readonly prefix: Buffer;
  private readonly decoder = new StringDecoder('utf8');
  private carry: Buffer = Buffer.alloc(0);

  constructor(key: string) {
    this.prefix = Buffer.from(`${SYNC_MARK_START}${key}:`, 'utf8');
  }

  push(chunk: Buffer): RawItem[] {
    let bytes = this.carry.length ? Buffer.concat([this.carry, chunk]) : chunk;
    this.carry = Buffer.alloc(0);
    const items: RawItem[] = [];
    let from = 0;
    for (;;) {
      const at = bytes.indexOf(this.prefix, from);
      if (at === -1) break;
      const bodyStart = at + this.prefix.length;
      const body = bytes.subarray(bodyStart, bodyStart + MAX_BODY_BYTES);
      const bodyLength = body.indexOf(END_BYTE);
      if (bodyLength === -1 && bytes.length - bodyStart < MAX_BODY_BYTES) {
        // A marker cut by a chunk boundary waits for its rest (a marker is short).
        this.carry = Buffer.from(bytes.subarray(at));
        bytes = bytes.subarray(0, at);
        break;
      }
      const end = bodyStart + bodyLength;
      const mark =
        bodyLength === -1 ? undefined : parseSyncMarkBody(bytes.toString('latin1', bodyStart, end));
      if (!mark) {
        from = bodyStart; // the prefix with a body that is no marker's: text
        continue;
      }
      this.text(items, bytes.subarray(0, at));
      items.push({ mark });
      bytes = bytes.subarray(end + 1);
      from = 0;
    }
    if (!this.carry.length) {
      // The chunk may end with the first bytes of a marker: hold them back.
      const k = this.partialPrefixAtEnd(bytes);
      if (k > 0) {
        this.carry = Buffer.from(bytes.subarray(bytes.length - k));
        bytes = bytes.subarray(0, bytes.length - k);
      }
    }
    this.text(items, bytes);
    return items;
  }

  /** What is held back at the end of the stream: text after all. */
  end(): string {
    const rest = this.decoder.write(this.carry) + this.decoder.end();
    this.carry = Buffer.alloc(0);
    return rest;
  }

  private text(items: RawItem[], bytes: Buffer) {
    if (!bytes.length) return;
    const text = this.decoder.write(bytes);
    if (text) items.push({ text });
  }

  /** The length of the longest end of `bytes` that is a proper start of the marker prefix. */
  private partialPrefixAtEnd(bytes: Buffer): number {
    // The prefix starts with a NUL: without one near the end (text rarely has any), nothing to hold.
    const last = Math.min(this.prefix.length - 1, bytes.length);
    if (bytes.indexOf(this.prefix[0] as number, bytes.length - last) === -1) return 0;
    for (let k = last; k > 0; k--) {
      if (bytes.subarray(bytes.length - k).equals(this.prefix.subarray(0, k))) return k;
    }
    return 0;
  }
}

export interface MergeSink {
  text(stream: RawStream, text: string): void;
  frame(frame: Frame): void;
}

/**
 * The three streams of one kernel merged at its barriers. A stream that reaches a marker waits
 * there (what follows is kept) until every raw stream that has not ended reached it and, for a
 * barrier with a frame, until that frame is next; frames wait likewise for their barrier.
 * Barriers complete in the order of their numbers, so one number says what has passed.
 */
export class OutputMerge {
  private readonly demux: Record<RawStream, RawStreamDemux>;
  private readonly queued: Record<RawStream, RawItem[]> = { stdout: [], stderr: [] };
  private readonly waitingAt: Record<RawStream, SyncMark | undefined> = {
    stdout: undefined,
    stderr: undefined,
  };
  private readonly ended: Record<RawStream, boolean> = { stdout: false, stderr: false };
  private frames: Frame[] = [];
  private completed = -1;
  private finished = false;

  constructor(
    key: string,
    private readonly sink: MergeSink,
  ) {
    this.demux = { stdout: new RawStreamDemux(key), stderr: new RawStreamDemux(key) };
  }

  raw(stream: RawStream, chunk: Buffer): void {
    this.queued[stream].push(...this.demux[stream].push(chunk));
    this.flow();
  }

  frame(frame: Frame): void {
    this.frames.push(frame);
    this.flow();
  }

  /** The stream's pipe closed: its held-back bytes are text, and no barrier waits for it. */
  endStream(stream: RawStream): void {
    if (this.ended[stream]) return;
    this.ended[stream] = true;
    const rest = this.demux[stream].end();
    if (rest) this.queued[stream].push({ text: rest });
    this.flow();
  }

  /** The lowest barrier something waits at, if any. */
  get pending(): number | undefined {
    const at = [this.waitingAt.stdout?.n, this.waitingAt.stderr?.n];
    const head = this.frames[0]?.sync;
    if (head !== undefined && head > this.completed) at.push(head);
    const numbers = at.filter((n): n is number => n !== undefined);
    return numbers.length ? Math.min(...numbers) : undefined;
  }

  /** Lets the lowest pending barrier pass although a part of it never came (a lost marker). */
  force(): void {
    const n = this.pending;
    if (n === undefined) return;
    this.complete(n);
    this.flow();
  }

  /** The process ended: everything kept goes out, in order as far as it is known. */
  finish(): void {
    this.finished = true;
    for (const stream of RAW_STREAMS) {
      this.waitingAt[stream] = undefined;
      this.endStream(stream);
    }
    this.flow();
  }

  private flow() {
    for (;;) {
      let moved = this.flowFrames();
      for (const stream of RAW_STREAMS) moved = this.flowRaw(stream) || moved;
      if (!moved && !this.completeLowest()) return;
    }
  }

  private flowFrames(): boolean {
    let moved = false;
    while (this.frames.length) {
      const head = this.frames[0] as Frame;
      if (!this.finished && head.sync !== undefined && head.sync > this.completed) break;
      this.frames.shift();
      this.sink.frame(head);
      moved = true;
    }
    return moved;
  }

  private flowRaw(stream: RawStream): boolean {
    const queue = this.queued[stream];
    let moved = false;
    let i = 0;
    while (i < queue.length && !this.waitingAt[stream]) {
      const item = queue[i++] as RawItem;
      moved = true;
      if ('text' in item) this.sink.text(stream, item.text);
      else if (!this.finished && item.mark.n > this.completed) this.waitingAt[stream] = item.mark;
    }
    if (i) this.queued[stream] = queue.slice(i);
    return moved;
  }

  /** Completes the lowest pending barrier if all its parts have come; true if it did. */
  private completeLowest(): boolean {
    const n = this.pending;
    if (n === undefined) return false;
    const marks = RAW_STREAMS.map((s) => this.waitingAt[s]).filter((m) => m?.n === n);
    const head = this.frames[0]?.sync;
    const withFrame = marks.some((m) => m?.withFrame) || head === n;
    // A stream waiting at a later barrier has passed this one (its marker was lost).
    const rawReady = RAW_STREAMS.every((s) => this.ended[s] || (this.waitingAt[s]?.n ?? -1) >= n);
    const frameReady = !withFrame || (head !== undefined && head >= n);
    if (!rawReady || !frameReady) return false;
    this.complete(n);
    return true;
  }

  private complete(n: number) {
    this.completed = Math.max(this.completed, n);
    for (const stream of RAW_STREAMS) {
      const at = this.waitingAt[stream];
      if (at && at.n <= this.completed) this.waitingAt[stream] = undefined;
    }
  }
}
