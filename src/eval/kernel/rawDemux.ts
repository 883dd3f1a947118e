/**
 * The js kernel's raw output: what its process (child processes, native code) writes to fd 1 and
 * fd 2. Before a cell's `done` the runner writes a marker, `NUL omp-sync:<token>:<cell id> NUL`,
 * to both; the host holds `done` until both markers came through, so a cell's late output is
 * never taken for the next cell's. This module finds the markers in the streams, however the
 * bytes were cut into chunks, and passes everything else on unchanged. No I/O, no timers.
 */

export const RAW_MARK = '\u0000omp-sync:';
export const RAW_MARK_END = '\u0000';
/** A marker start whose end has not come within this many characters is not a marker: text. */
const MAX_MARK_CHARS = 256;

export type RawStream = 'stdout' | 'stderr';

/** One stream's demultiplexer: text in, text without markers and the markers' cell ids out. */
export class RawStreamDemux {
  private carry = '';
  private readonly mark: string;

  constructor(token: string) {
    this.mark = `${RAW_MARK}${token}:`;
  }

  /** The text of `data` (with what was held back from earlier chunks) and the markers in it. */
  push(data: string): { text: string; marks: string[] } {
    let text = this.carry + data;
    this.carry = '';
    const out: string[] = [];
    const marks: string[] = [];
    for (;;) {
      const at = text.indexOf(this.mark);
      if (at === -1) break;
      const end = text.indexOf(RAW_MARK_END, at + this.mark.length);
      if (end === -1) {
        // A marker cut by a chunk boundary waits for the rest of it (a marker is short).
        if (text.length - at < MAX_MARK_CHARS) {
          this.carry = text.slice(at);
          text = text.slice(0, at);
        }
        break;
      }
      out.push(text.slice(0, at));
      marks.push(text.slice(at + this.mark.length, end));
      text = text.slice(end + RAW_MARK_END.length);
    }
    if (!this.carry) {
      // The text may end with the first characters of a marker: hold them back.
      const k = this.partialMarkAtEnd(text);
      if (k > 0) {
        this.carry = text.slice(-k);
        text = text.slice(0, -k);
      }
    }
    out.push(text);
    return { text: out.join(''), marks };
  }

  /** What is held back at the end of the stream: text after all. */
  end(): string {
    const rest = this.carry;
    this.carry = '';
    return rest;
  }

  /** The length of the longest end of `text` that is a proper start of the marker. */
  private partialMarkAtEnd(text: string): number {
    for (let k = Math.min(this.mark.length - 1, text.length); k > 0; k--) {
      if (this.mark.startsWith(text.slice(-k))) return k;
    }
    return 0;
  }
}

/** Both raw streams of a js kernel, and the markers seen on them per cell. */
export class RawOutputDemux {
  private readonly streams: Record<RawStream, RawStreamDemux>;
  private readonly seen = new Set<string>();

  constructor(token: string) {
    this.streams = { stdout: new RawStreamDemux(token), stderr: new RawStreamDemux(token) };
  }

  /** The text to pass on from a chunk of `stream`; markers in it are remembered. */
  push(stream: RawStream, data: string): string {
    const { text, marks } = this.streams[stream].push(data);
    for (const id of marks) this.seen.add(`${stream}:${id}`);
    return text;
  }

  /** True once the markers of cell `id` came through on both streams. */
  synced(id: string): boolean {
    return this.seen.has(`stdout:${id}`) && this.seen.has(`stderr:${id}`);
  }

  /** Forgets cell `id`'s markers (its `done` was released). */
  forget(id: string): void {
    this.seen.delete(`stdout:${id}`);
    this.seen.delete(`stderr:${id}`);
  }

  /** The text held back on `stream` at its end. */
  end(stream: RawStream): string {
    return this.streams[stream].end();
  }
}
