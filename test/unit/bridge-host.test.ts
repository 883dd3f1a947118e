import { describe, expect, it } from 'vitest';
import { limitBridge } from '../../src/eval/executor/bridgeLimit.js';
import { BridgeLines } from '../../src/eval/kernel/bridgeServer.js';
import { parseBridgeCall } from '../../src/eval/protocol/index.js';

describe('BridgeLines', () => {
  it('splits lines across chunks and skips a line over the limit, keeping its head', () => {
    const lines = new BridgeLines(10);
    expect(lines.push('{"id":1}\n{"id"')).toEqual([{ text: '{"id":1}' }]);
    expect(lines.push(':2,"x":"')).toEqual([]);
    expect(lines.push('aaaaaaaa')).toEqual([]);
    expect(lines.push('aaaa"}\n{"id":3}\n')).toEqual([{ oversized: '{"id":2,"x":"' }, { text: '{"id":3}' }]);
  });

  it('decodes UTF-8 split across chunks', () => {
    const lines = new BridgeLines();
    const bytes = Buffer.from('"é"\n');
    expect(lines.push(bytes.subarray(0, 2))).toEqual([]);
    expect(lines.push(bytes.subarray(2))).toEqual([{ text: '"é"' }]);
  });
});

describe('bridge lines the kernel sends', () => {
  it('a cancel names the call the kernel gave up on', () => {
    expect(parseBridgeCall('{"cancel": 7}')).toEqual({ cancel: 7 });
    expect(parseBridgeCall('{"cancel": "7"}')).toHaveProperty('problem');
  });
});

describe('limitBridge (item 7)', () => {
  it('runs at most N calls at once, in order, and drops a waiting call that is aborted', async () => {
    let running = 0;
    let peak = 0;
    const started: string[] = [];
    const release: (() => void)[] = [];
    const handler = limitBridge(async ({ kind }) => {
      started.push(kind);
      running++;
      peak = Math.max(peak, running);
      await new Promise<void>((resolve) => release.push(resolve));
      running--;
      return kind;
    }, 2);
    const controllers = ['a', 'b', 'c', 'd'].map(() => new AbortController());
    const calls = ['a', 'b', 'c', 'd'].map((kind, i) =>
      handler({ kind, payload: {} }, (controllers[i] as AbortController).signal).catch(
        (e: Error) => e.message,
      ),
    );
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual(['a', 'b']);
    controllers[2]?.abort(); // c waits: it leaves the queue at once
    expect(await calls[2]).toBe('cancelled: the cell was interrupted');
    release.shift()?.();
    expect(await calls[0]).toBe('a');
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual(['a', 'b', 'd']);
    while (release.length) release.shift()?.();
    expect(await Promise.all(calls)).toEqual(['a', 'b', 'cancelled: the cell was interrupted', 'd']);
    expect(peak).toBe(2);
  });
});
