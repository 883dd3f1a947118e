/**
 * `omp-eval run`'s stdin, for the cells' input() and sys.stdin: one line per request, read only
 * when a cell asks (a script that never reads leaves stdin alone), and `null` once it has ended.
 * A line keeps its `\n` (and a `\r` before it: Python's sys.stdin does not translate `\r\n`
 * on POSIX); the last line of input that does not end in one comes without.
 */
import { StringDecoder } from 'node:string_decoder';

export interface LineReader {
  /** The next line, with its `\n`; null at the end of the input. */
  next(): Promise<string | null>;
  /** Stops reading (the process can exit with stdin still open). */
  close(): void;
}

/** A reader that is at its end from the start (the script itself came from stdin). */
export const endedReader: LineReader = { next: async () => null, close() {} };

export function lineReader(input: NodeJS.ReadableStream): LineReader {
  const decoder = new StringDecoder('utf8');
  let started = false;
  let ended = false;
  let partial = '';
  const lines: string[] = [];
  const waiting: ((line: string | null) => void)[] = [];
  const deliver = () => {
    while (waiting.length && lines.length) waiting.shift()?.(lines.shift() as string);
    if (ended) for (const waiter of waiting.splice(0)) waiter(null);
    if (lines.length) input.pause(); // read on when a cell asks again
  };
  const onData = (chunk: Buffer | string) => {
    const text = partial + (typeof chunk === 'string' ? chunk : decoder.write(chunk));
    let start = 0;
    for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', start)) {
      lines.push(text.slice(start, nl + 1));
      start = nl + 1;
    }
    partial = text.slice(start);
    deliver();
  };
  const onEnd = () => {
    const rest = partial + decoder.end();
    partial = '';
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
    next() {
      const line = lines.shift();
      if (line !== undefined) return Promise.resolve(line);
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
