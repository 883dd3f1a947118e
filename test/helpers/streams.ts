/** In-process stand-ins for a command's standard streams: text in, text collected out. */
import { Readable, Writable } from 'node:stream';

/** A writable stream that keeps what was written; `text()` is all of it so far. */
export function textSink(): { stream: Writable; text: () => string } {
  let text = '';
  const stream = new Writable({
    write(chunk, _encoding, callback) {
      text += String(chunk);
      callback();
    },
  });
  return { stream, text: () => text };
}

/** The standard output and error of a command, kept. */
export function outputStreams() {
  const out = textSink();
  const err = textSink();
  return { streams: { out: out.stream, err: err.stream }, out: out.text, err: err.text };
}

/** A readable stream that gives `text` and ends. */
export const textSource = (text: string): Readable => Readable.from([Buffer.from(text)]);
