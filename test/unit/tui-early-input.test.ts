/**
 * Keys typed before the notebook's first prompt: kept for it, Enter as Enter even when the
 * terminal's line discipline (before raw mode) made it an LF.
 */
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { EarlyInput } from '../../src/tui/terminal/earlyInput.js';

function fakeStdin() {
  const queue: (Buffer | string)[] = [];
  const unshifted: Buffer[] = [];
  const stdin = Object.assign(new EventEmitter(), {
    read: () => queue.shift() ?? null,
    unshift: (chunk: Buffer) => unshifted.push(chunk),
    type(data: Buffer | string) {
      queue.push(data);
      stdin.emit('readable');
    },
    given: () => Buffer.concat(unshifted),
  });
  return stdin;
}

describe('keys typed before the first prompt', () => {
  it('go back to the input when Ink takes it, LF (Enter before raw mode) as CR', () => {
    const stdin = fakeStdin();
    const early = new EarlyInput(stdin);
    stdin.type('1+1\n');
    stdin.type(Buffer.from('c = 3\r'));
    early.release();
    expect(stdin.given().toString()).toBe('1+1\rc = 3\r');
    expect(stdin.listenerCount('readable')).toBe(0);
    // Released once: keys after it are Ink's.
    early.release();
    expect(stdin.given().toString()).toBe('1+1\rc = 3\r');
  });

  it('keep a UTF-8 character that two reads split, and give nothing back when none came', () => {
    const stdin = fakeStdin();
    const early = new EarlyInput(stdin);
    const bytes = Buffer.from('s = "é"\n');
    stdin.type(bytes.subarray(0, 6));
    stdin.type(bytes.subarray(6));
    early.remove(/\x1b\[\?[\d;]*c/g);
    early.release();
    expect(stdin.given().toString()).toBe('s = "é"\r');
    const none = fakeStdin();
    new EarlyInput(none).release();
    expect(none.given()).toHaveLength(0);
  });

  it('wait for a reply up to a deadline, and drop the replies from the keys', async () => {
    const stdin = fakeStdin();
    const early = new EarlyInput(stdin);
    const waiting = early.until(/\x1b\[\?[\d;]*c/, 3_600_000);
    stdin.type('x');
    stdin.type('\x1b[?62;c');
    expect(await waiting).toBe('x\x1b[?62;c');
    early.remove(/\x1b\[\?[\d;]*c/g);
    // Nothing matches: the deadline ends the wait.
    expect(await early.until(/never/, 10)).toBe('x');
    early.release();
    expect(stdin.given().toString()).toBe('x');
  });
});
