/**
 * `omp-eval run`'s stdin, for the cells' input() and sys.stdin: whole lines per request (as many
 * as have come, up to a bound), read only when a cell asks (a script that never reads leaves
 * stdin alone), and `null` once it has ended.
 * A line keeps its `\n` (and a `\r` before it: Python's sys.stdin does not translate `\r\n`
 * on POSIX); the last line of input that does not end in one comes without.
 */
import { StringDecoder } from 'node:string_decoder';

export interface LineReader {
  /**
   * The next piece of the input: whole lines with their `\n` (at least one, and as many more as
   * have come, up to `maxChars`; the last line of the input may have no `\n`); null at its end.
   */
  next(maxChars?: number): Promise<string | null>;
  /** Stops reading (the process can exit with stdin still open). */
  close(): void;
}

/** A reader that is at its end from the start (the script itself came from stdin). */
export const endedReader: LineReader = { next: async () => null, close() {} };

/** What one answer carries at most (beyond its first line): a round trip per line was slow. */
const PIECE_CHARS = 64 * 1024;

export function lineReader(input: NodeJS.ReadableStream): LineReader {
  const decoder = new StringDecoder('utf8');
  let started = false;
  let ended = false;
  /** The line being read, in pieces (joined once its `\n` comes: a long line is not rescanned). */
  let partial: string[] = [];
  const lines: string[] = [];
  const waiting: ((line: string | null) => void)[] = [];
  const deliver = () => {
    while (waiting.length && lines.length) waiting.shift()?.(lines.shift() as string);
    if (ended) for (const waiter of waiting.splice(0)) waiter(null);
    if (lines.length) input.pause(); // read on when a cell asks again
  };
  const onData = (chunk: Buffer | string) => {
    const text = typeof chunk === 'string' ? chunk : decoder.write(chunk);
    let start = 0;
    for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', start)) {
      const end = text.slice(start, nl + 1);
      lines.push(partial.length ? partial.join('') + end : end);
      partial = [];
      start = nl + 1;
    }
    if (start < text.length) partial.push(text.slice(start));
    deliver();
  };
  const onEnd = () => {
    const rest = partial.join('') + decoder.end();
    partial = [];
    if (rest) lines.push(rest);
    ended = true;
    deliver();
  };
  const stop = () => {
    input.off('data', onData);
    input.off('end', onEnd);
    input.off('error', onEnd);
    input.pause();
  };
  return {
    next(maxChars = PIECE_CHARS) {
      let line = lines.shift();
      if (line !== undefined) {
        while (lines.length && line.length + (lines[0] as string).length <= maxChars) line += lines.shift();
        if (!lines.length && !ended) input.resume(); // read on meanwhile
        return Promise.resolve(line);
      }
      if (ended) return Promise.resolve(null);
      const answer = new Promise<string | null>((resolve) => waiting.push(resolve));
      if (!started) {
        started = true;
        input.on('data', onData);
        input.once('end', onEnd);
        input.once('error', onEnd); // (an unreadable stdin ends the input)
      }
      input.resume();
      return answer;
    },
    close() {
      if (started) stop();
      ended = true;
      deliver();
    },
  };
}
