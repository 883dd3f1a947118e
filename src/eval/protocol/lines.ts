/**
 * NDJSON framing: one JSON object per `\n`-terminated line, UTF-8.
 */
import { StringDecoder } from 'node:string_decoder';

const DEFAULT_MAX_FRAME_CHARS = 256 * 1024 * 1024;

export class FrameTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(
      `a frame from the kernel exceeded ${limit} characters without a newline; ` +
        'the kernel output stream cannot be trusted any more',
    );
    this.name = 'FrameTooLargeError';
  }
}

/**
 * Splits a byte stream into lines on `\n` only (never on U+2028/U+2029 or `\r`), decoding UTF-8
 * that is split across chunks. Pending pieces are kept in an array so a multi-megabyte frame
 * arriving in many chunks costs linear time.
 */
export class LineSplitter {
  private readonly decoder = new StringDecoder('utf8');
  private parts: string[] = [];
  private pendingChars = 0;

  constructor(private readonly maxLineChars = DEFAULT_MAX_FRAME_CHARS) {}

  /** Returns the complete lines in `chunk`; throws FrameTooLargeError past the cap. */
  push(chunk: Buffer | string): string[] {
    const text = typeof chunk === 'string' ? chunk : this.decoder.write(chunk);
    const lines: string[] = [];
    let start = 0;
    for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', start)) {
      const piece = text.slice(start, nl);
      if (this.parts.length) {
        this.parts.push(piece);
        lines.push(this.parts.join(''));
        this.parts = [];
        this.pendingChars = 0;
      } else {
        lines.push(piece);
      }
      start = nl + 1;
    }
    if (start < text.length) {
      const rest = text.slice(start);
      this.parts.push(rest);
      this.pendingChars += rest.length;
      if (this.pendingChars > this.maxLineChars) {
        this.parts = [];
        this.pendingChars = 0;
        throw new FrameTooLargeError(this.maxLineChars);
      }
    }
    return lines;
  }

  /** The unterminated rest at end of stream, if any. */
  end(): string | undefined {
    const tail = this.decoder.end();
    if (tail) this.parts.push(tail);
    const rest = this.parts.join('');
    this.parts = [];
    this.pendingChars = 0;
    return rest.length ? rest : undefined;
  }
}
