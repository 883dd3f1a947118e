/** The follow-an-agent wire (src/modes/share/protocol.ts): messages checked, lines split. */
import { describe, expect, it } from 'vitest';
import {
  encode,
  LineReader,
  ProtocolError,
  parseClientMessage,
  parseServerMessage,
} from '../../src/modes/share/protocol.js';

describe('share protocol messages', () => {
  it('takes the client messages it knows, with their fields', () => {
    expect(parseClientMessage('{"t":"hello","v":1,"secret":"abc"}')).toEqual({
      t: 'hello',
      v: 1,
      secret: 'abc',
    });
    expect(parseClientMessage('{"t":"list"}')).toEqual({ t: 'list' });
    expect(parseClientMessage('{"t":"subscribe","session":"12/1","history":3}')).toEqual({
      t: 'subscribe',
      session: '12/1',
      history: 3,
    });
    expect(parseClientMessage('{"t":"run","code":"x = 1","ref":"3"}')).toEqual({
      t: 'run',
      code: 'x = 1',
      ref: '3',
    });
    expect(parseClientMessage('{"t":"interrupt"}')).toEqual({ t: 'interrupt' });
    expect(parseClientMessage(encode({ t: 'subscribe', session: '12/1' }).trim())).toEqual({
      t: 'subscribe',
      session: '12/1',
    });
  });

  it('refuses malformed ones with a reason', () => {
    const reason = (line: string) => {
      try {
        parseClientMessage(line);
      } catch (err) {
        expect(err).toBeInstanceOf(ProtocolError);
        return (err as Error).message;
      }
      return 'accepted';
    };
    expect(reason('not json')).toBe('a line that is not JSON');
    expect(reason('[1]')).toBe('a line that is not a JSON object');
    expect(reason('{"t":"hello","v":1}')).toMatch(/secret/);
    expect(reason('{"t":"subscribe"}')).toMatch(/needs a session/);
    expect(reason('{"t":"subscribe","session":"1","history":-1}')).toMatch(/whole number/);
    expect(reason('{"t":"run"}')).toMatch(/run needs the code and a ref/);
    expect(reason('{"t":"nope"}')).toMatch(/unknown message type "nope"/);
  });

  it('takes server messages by type', () => {
    expect(parseServerMessage('{"t":"callEnd","call":2}')).toEqual({ t: 'callEnd', call: 2 });
    expect(() => parseServerMessage('{"t":"nope"}')).toThrow(ProtocolError);
  });
});

describe('LineReader', () => {
  it('splits on \\n only, keeps UTF-8 across chunks and U+2028 inside a line', () => {
    const lines: string[] = [];
    const reader = new LineReader((l) => lines.push(l));
    const bytes = Buffer.from('{"a":"é\u2028x"}\n{"b":1}\r\n\n{"c"', 'utf8');
    const cut = bytes.indexOf(0xa9); // (inside é)
    reader.push(bytes.subarray(0, cut));
    reader.push(bytes.subarray(cut));
    reader.push(':2}\n');
    expect(lines).toEqual(['{"a":"é\u2028x"}', '{"b":1}\r', '{"c":2}']);
  });

  it('refuses a line over its cap, also one that comes in pieces', () => {
    const reader = new LineReader(() => {}, 10);
    reader.push('12345');
    expect(() => reader.push('678901')).toThrow(/longer than/);
    expect(() => new LineReader(() => {}, 10).push('12345678901\n')).toThrow(ProtocolError);
  });

  it('splits many lines of one chunk', () => {
    let n = 0;
    new LineReader(() => n++).push('x\n'.repeat(100_000));
    expect(n).toBe(100_000);
  });
});
