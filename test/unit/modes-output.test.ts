import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { writeEvent } from '../../src/modes/output.js';

/** A stream that takes one byte at a time and holds each write until `release()`. */
function slowStream() {
  const held: (() => void)[] = [];
  const stream = new Writable({
    highWaterMark: 1,
    write(_chunk, _enc, callback) {
      held.push(callback);
    },
  });
  const release = () => {
    for (let next = held.shift(); next; next = held.shift()) next();
  };
  return { stream, release };
}

describe('run and line mode: writing events', () => {
  it('waits for a full stream with one drain listener, however many events find it full', async () => {
    const out = slowStream();
    const err = slowStream();
    const streams = { out: out.stream, err: err.stream };
    const waits = Array.from({ length: 20 }, (_, i) =>
      writeEvent({ kind: 'stdout', text: `${i}\n` }, streams),
    );
    expect(waits.every((w) => w instanceof Promise)).toBe(true);
    expect(out.stream.listenerCount('drain')).toBe(1);
    while (out.stream.writableLength > 0) {
      out.release();
      await new Promise((resolve) => setImmediate(resolve));
    }
    await Promise.all(waits);
    expect(out.stream.listenerCount('drain')).toBe(0);
    expect(out.stream.listenerCount('close')).toBe(0);
  });

  it('stops waiting when the stream ends without draining (the reader went away)', async () => {
    const out = slowStream();
    const streams = { out: out.stream, err: slowStream().stream };
    const waits = Array.from({ length: 12 }, () => writeEvent({ kind: 'stdout', text: 'y\n' }, streams));
    out.stream.destroy();
    await Promise.all(waits);
    expect(out.stream.listenerCount('drain')).toBe(0);
  });
});
