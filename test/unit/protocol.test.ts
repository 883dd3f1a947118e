import { describe, expect, it } from 'vitest';
import {
  encodeRequest,
  executeRequest,
  FrameTooLargeError,
  LineSplitter,
  parseFrameLine,
  validateFrame,
} from '../../src/eval/protocol/index.js';

describe('LineSplitter', () => {
  it('splits on \\n only, keeping U+2028, U+2029 and \\r inside lines', () => {
    const s = new LineSplitter();
    expect(s.push('{"a":"x\u2028y\u2029z"}\r\n{"b":1}\n')).toEqual(['{"a":"x\u2028y\u2029z"}\r', '{"b":1}']);
  });

  it('decodes UTF-8 characters split across chunks', () => {
    const s = new LineSplitter();
    const bytes = Buffer.from('{"d":"日本🎉"}\n');
    const out: string[] = [];
    for (let i = 0; i < bytes.length; i++) out.push(...s.push(bytes.subarray(i, i + 1)));
    expect(out).toEqual(['{"d":"日本🎉"}']);
  });

  it('joins a 10 MB frame that arrives in many chunks', () => {
    const s = new LineSplitter();
    const line = JSON.stringify({ type: 'stdout', id: 'a', data: 'x'.repeat(10 * 1024 * 1024) });
    const buf = Buffer.from(`${line}\n`);
    const out: string[] = [];
    for (let i = 0; i < buf.length; i += 65_536) out.push(...s.push(buf.subarray(i, i + 65_536)));
    expect(out).toHaveLength(1);
    expect(out[0]).toBe(line);
  });

  it('keeps a line without a final newline for end()', () => {
    const s = new LineSplitter();
    expect(s.push('{"a":1}\npartial')).toEqual(['{"a":1}']);
    expect(s.end()).toBe('partial');
    expect(s.end()).toBeUndefined();
  });

  it('throws a clear error past the frame cap, then keeps working', () => {
    const s = new LineSplitter(1000);
    expect(() => s.push('y'.repeat(1001))).toThrow(FrameTooLargeError);
    expect(() => new LineSplitter(1000).push('y'.repeat(1001))).toThrow(/exceeded/);
    expect(s.push('ok\n')).toEqual(['ok']);
  });
});

describe('parseFrameLine and validateFrame', () => {
  it('accepts every frame shape of the protocol', () => {
    const frames = [
      { type: 'started', id: 'a' },
      { type: 'stdout', id: 'a', data: 'x' },
      { type: 'stderr', id: null, data: 'x' },
      { type: 'display', id: 'a', bundle: { 'text/plain': '1' } },
      { type: 'result', id: 'a', bundle: { 'text/plain': '1' } },
      { type: 'error', id: 'a', ename: 'E', evalue: 'v', traceback: [] },
      { type: 'input_request', id: 'a', prompt: '? ', password: false },
      { type: 'done', id: 'a', status: 'ok', executionCount: 1, cancelled: false },
    ];
    for (const frame of frames)
      expect(parseFrameLine(JSON.stringify(frame))).toEqual({ kind: 'frame', frame });
  });

  it('reports junk and malformed frames as noise with a reason', () => {
    expect(parseFrameLine('Traceback (most recent call last):')).toMatchObject({
      kind: 'noise',
      reason: 'not JSON',
    });
    expect(parseFrameLine('[1,2]')).toMatchObject({ kind: 'noise', reason: 'not a JSON object' });
    expect(parseFrameLine('{"type":"done","id":"a"}')).toMatchObject({
      kind: 'noise',
      reason: /^done frame: the object must have required property 'status'/,
    });
    expect(parseFrameLine('{"type":"bogus"}')).toMatchObject({
      kind: 'noise',
      reason: 'unknown frame type "bogus"',
    });
    expect(validateFrame({ type: 'stdout', id: 3, data: 'x' })).toMatch(
      /^stdout frame: id must be string,null/,
    );
  });

  it('encodes a request as one line', () => {
    const line = encodeRequest(executeRequest('a', 'print("a\\nb")\n'));
    expect(line.endsWith('\n')).toBe(true);
    expect(line.slice(0, -1)).not.toContain('\n');
    expect(JSON.parse(line)).toMatchObject({ id: 'a', code: 'print("a\\nb")\n' });
  });
});
