import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { endedReader, lineReader } from '../../src/modes/stdinLines.js';

describe("run's stdin, line by line", () => {
  it('gives lines with their \\n as they come, across chunks, and null at the end', async () => {
    const input = new PassThrough();
    const reader = lineReader(input);
    const first = reader.next(); // asked before anything was written
    input.write('ab');
    input.write(Buffer.from('c\r\nna\xc3', 'latin1')); // half of ï
    input.write(Buffer.from([0xaf]));
    input.write('ve\nlast');
    expect(await first).toBe('abc\r\n'); // as python's sys.stdin reads it on POSIX
    expect(await reader.next()).toBe('naïve\n');
    input.end();
    expect(await reader.next()).toBe('last'); // no newline at the end of the input
    expect(await reader.next()).toBeNull();
    expect(await reader.next()).toBeNull();
  });

  it('keeps a long line that comes in many chunks whole, with the lines around it', async () => {
    // (each chunk is searched for its newline alone: a 16 MB line took 14 s when the line so far
    // was searched again at every chunk)
    const input = new PassThrough();
    const reader = lineReader(input);
    const first = reader.next();
    input.write('short\nlo');
    for (let i = 0; i < 500; i++) input.write('x'.repeat(1000));
    input.write('ng\ntail');
    input.end();
    expect(await first).toBe('short\n');
    expect(await reader.next()).toBe(`lo${'x'.repeat(500_000)}ng\n`);
    expect(await reader.next()).toBe('tail');
    expect(await reader.next()).toBeNull();
  });

  it('answers with every whole line that has come, up to a bound, so a cell asks once for many', async () => {
    const input = new PassThrough();
    const reader = lineReader(input);
    const first = reader.next(10);
    input.write('one\ntwo\nthree\nfour');
    expect(await first).toBe('one\n'); // asked before the rest came
    expect(await reader.next(9)).toBe('two\n'); // with three, 10 chars: over the bound
    input.end('\n');
    const rest: string[] = [];
    for (let piece = await reader.next(100); piece !== null; piece = await reader.next(100)) rest.push(piece);
    expect(rest.join('')).toBe('three\nfour\n');
    expect(rest[0]?.startsWith('three\n')).toBe(true);
  });

  it('reads nothing until asked, and lets go of the stream when closed', async () => {
    const input = new PassThrough();
    const reader = lineReader(input);
    expect(input.listenerCount('data')).toBe(0);
    const pending = reader.next();
    expect(input.listenerCount('data')).toBe(1);
    reader.close();
    expect(await pending).toBeNull();
    expect(input.listenerCount('data')).toBe(0);
    expect(await endedReader.next()).toBeNull();
  });
});
