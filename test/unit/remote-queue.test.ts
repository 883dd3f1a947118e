/**
 * The remote kernel's pure parts on their own: its cell queue (src/eval/remote/remoteQueue.ts,
 * with a real state machine and a host that records what the queue asks of its connection),
 * the reading of Jupyter messages (messages.ts) and the deadline (deadline.ts). What talks to a
 * server is tested against a real one (test/integration/remote-connection.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { KernelStateMachine } from '../../src/eval/kernel/state.js';
import type { CellOutcome } from '../../src/eval/kernel/types.js';
import { STATUS_MIME } from '../../src/eval/output/display.js';
import type { Frame } from '../../src/eval/protocol/index.js';
import { withDeadline } from '../../src/eval/remote/deadline.js';
import {
  CLEAR_OUTPUT_BUNDLE,
  codePointOffset,
  readIopub,
  utf16Offset,
} from '../../src/eval/remote/messages.js';
import type { RemoteCell } from '../../src/eval/remote/remoteCell.js';
import { RemoteCellQueue } from '../../src/eval/remote/remoteQueue.js';

function queueOf() {
  const machine = new KernelStateMachine();
  machine.fire('ready');
  const log: string[] = [];
  const queue = new RemoteCellQueue(machine, {
    send: (cell: RemoteCell) => log.push(`send ${cell.id}`),
    interrupt: () => log.push('interrupt'),
    ended: () => log.push('ended'),
  });
  const frames: Frame[] = [];
  const enqueue = (id: string, signal?: AbortSignal, unavailable?: string) =>
    queue.enqueue(
      id,
      `code ${id}`,
      { onFrame: (f) => frames.push(f), ...(signal ? { signal } : {}) },
      unavailable,
    );
  /** Ends the running cell as its execute_reply would. */
  const reply = (count: number) => {
    const cell = queue.current as RemoteCell;
    queue.end(cell, () => cell.replied({ status: 'ok', execution_count: count }, queue.executionCount));
  };
  return { machine, queue, log, frames, enqueue, reply };
}

describe('RemoteCellQueue', () => {
  it('sends one cell at a time while the kernel is idle, in order, the next when the running one ends', async () => {
    const { machine, queue, log, enqueue, reply } = queueOf();
    const a = enqueue('a');
    const b = enqueue('b');
    expect(log).toEqual(['send a']);
    expect(machine.state).toBe('busy');
    reply(7);
    expect(await a).toMatchObject({ id: 'a', status: 'ok', executionCount: 7 });
    expect(log).toEqual(['send a', 'ended', 'send b']);
    reply(8);
    expect(await b).toMatchObject({ id: 'b', executionCount: 8 });
    expect(queue.executionCount).toBe(8);
    expect(machine.state).toBe('idle');
  });

  it('ends a cell once: a second end (a late reply) changes nothing', async () => {
    const { queue, enqueue } = queueOf();
    const a = enqueue('a');
    const cell = queue.current as RemoteCell;
    queue.end(cell, () => cell.replied({ status: 'ok', execution_count: 1 }, 0));
    queue.end(cell, () => cell.replied({ status: 'error', execution_count: 99 }, 0));
    expect(await a).toMatchObject({ status: 'ok', executionCount: 1 });
    expect(queue.executionCount).toBe(1);
  });

  it('holds every cell while a kernel someone else restarted comes back, and sends them after', async () => {
    const { queue, log, enqueue, reply } = queueOf();
    let back!: () => void;
    const backs: number[] = [];
    const until = () => {
      backs.push(1);
      return new Promise<void>((resolve) => (back = resolve));
    };
    queue.holdUntil(until);
    queue.holdUntil(until); // one wait, not two
    const a = enqueue('a');
    expect(log).toEqual([]);
    expect(backs).toHaveLength(1);
    back();
    await new Promise((resolve) => setImmediate(resolve));
    expect(log).toEqual(['send a']);
    reply(1);
    await a;
  });

  it('says why a kernel that ended takes no cell', async () => {
    const { log, enqueue } = queueOf();
    const outcome = await enqueue('a', undefined, 'The kernel on the Jupyter server is dead');
    expect(outcome.error).toMatchObject({
      ename: 'KernelDied',
      evalue: 'The kernel on the Jupyter server is dead',
    });
    expect(log).toEqual([]);
  });

  it('cancels a queued cell whose signal fires, and interrupts the running one', async () => {
    const { log, enqueue, reply } = queueOf();
    const first = new AbortController();
    const second = new AbortController();
    const a = enqueue('a', first.signal);
    const b = enqueue('b', second.signal);
    second.abort();
    expect(await b).toMatchObject({ id: 'b', cancelled: true });
    first.abort();
    expect(log).toEqual(['send a', 'interrupt']);
    reply(1);
    await a;
    const early = new AbortController();
    early.abort();
    expect(await enqueue('c', early.signal)).toMatchObject({ cancelled: true });
    expect(log).toEqual(['send a', 'interrupt', 'ended']);
  });

  it('ends every cell saying why when the kernel is lost: the running one with the reason as its error', async () => {
    const { queue, frames, enqueue } = queueOf();
    const a = enqueue('a');
    const b = enqueue('b');
    queue.lost('ConnectionLost', 'Lost the connection to the Jupyter server at host:1');
    const [ran, queued] = (await Promise.all([a, b])) as [CellOutcome, CellOutcome];
    expect(ran.error).toMatchObject({
      ename: 'ConnectionLost',
      evalue: 'Lost the connection to the Jupyter server at host:1',
    });
    expect(frames.filter((f) => f.id === 'a').map((f) => f.type)).toEqual(['error', 'done']);
    expect(queued.error?.evalue).toBe(
      'The kernel ended before this cell ran: Lost the connection to the Jupyter server at host:1',
    );
    expect(queue.current).toBeUndefined();
  });

  it('ends every cell at a shutdown, the running one cancelled when it was being interrupted', async () => {
    const { queue, enqueue } = queueOf();
    const a = enqueue('a');
    const b = enqueue('b');
    (queue.current as RemoteCell).interrupted = true;
    queue.shutDown({ code: 0, signal: null, reason: 'shutdown', stderrTail: '' });
    const [ran, queued] = await Promise.all([a, b]);
    expect(ran).toMatchObject({ cancelled: true });
    expect(ran.error?.evalue).toMatch(/^The kernel was shut down while this cell was running/);
    expect(queued).toMatchObject({ cancelled: false });
    expect(queued.error?.evalue).toMatch(/^The kernel exited before this cell ran/);
  });
});

describe('readIopub: Jupyter messages as frames', () => {
  const msg = (msg_type: string, content: object) => ({ header: { msg_type }, content });

  it('reads streams, displays (with their display id and update), results and errors', () => {
    expect(readIopub(msg('stream', { name: 'stderr', text: 'oops' }), 'c')).toEqual({
      kind: 'frame',
      frame: { type: 'stderr', id: 'c', data: 'oops' },
    });
    expect(readIopub(msg('stream', { name: 'stdout', text: 'hi' }), 'c')).toMatchObject({
      frame: { type: 'stdout', data: 'hi' },
    });
    const data = { 'text/plain': '1' };
    expect(readIopub(msg('display_data', { data, transient: { display_id: 'd' } }), 'c')).toEqual({
      kind: 'frame',
      frame: { type: 'display', id: 'c', bundle: data, displayId: 'd' },
    });
    expect(readIopub(msg('update_display_data', { data, transient: { display_id: 'd' } }), 'c')).toEqual({
      kind: 'frame',
      frame: { type: 'display', id: 'c', bundle: data, displayId: 'd', update: true },
    });
    // An update without a display id updates nothing: a plain display.
    expect(readIopub(msg('update_display_data', { data }), null)).toEqual({
      kind: 'frame',
      frame: { type: 'display', id: null, bundle: data },
    });
    expect(readIopub(msg('execute_result', { data }), 'c')).toEqual({
      kind: 'frame',
      frame: { type: 'result', id: 'c', bundle: data },
    });
    expect(readIopub(msg('error', { ename: 'E', evalue: 'v', traceback: ['a', 3] }), 'c')).toEqual({
      kind: 'frame',
      frame: { type: 'error', id: 'c', ename: 'E', evalue: 'v', traceback: ['a', '3'] },
    });
    expect(readIopub(msg('error', {}), 'c')).toMatchObject({
      frame: { ename: 'Error', evalue: '', traceback: [] },
    });
  });

  it('tells clear_output (and its wait), execute_input and the rest apart', () => {
    expect(readIopub(msg('clear_output', { wait: true }), 'c')).toEqual({ kind: 'clear', wait: true });
    expect(readIopub(msg('clear_output', {}), 'c')).toEqual({ kind: 'clear', wait: false });
    expect(readIopub(msg('execute_input', { code: 'x' }), 'c')).toEqual({ kind: 'started' });
    expect(readIopub(msg('comm_open', {}), 'c')).toEqual({ kind: 'other' });
    expect(CLEAR_OUTPUT_BUNDLE).toEqual({ [STATUS_MIME]: { op: 'clear_output' } });
  });

  it('converts cursors between UTF-16 and code points, both ways, past characters outside the BMP', () => {
    const text = 'a😀b😀c';
    expect(codePointOffset(text, 3)).toBe(2); // after 'a😀'
    expect(codePointOffset(text, text.length)).toBe(5);
    expect(utf16Offset(text, 2)).toBe(3);
    expect(utf16Offset(text, 5)).toBe(text.length);
    expect(utf16Offset(text, 99)).toBe(text.length);
    for (let cp = 0; cp <= 5; cp++) expect(codePointOffset(text, utf16Offset(text, cp))).toBe(cp);
  });
});

describe('withDeadline', () => {
  it('passes a value or a failure through, and fails with the deadline’s error when nothing comes', async () => {
    await expect(withDeadline(Promise.resolve(1), 60_000, () => new Error('late'))).resolves.toBe(1);
    await expect(
      withDeadline(Promise.reject(new Error('no')), 60_000, () => new Error('late')),
    ).rejects.toThrow('no');
    await expect(withDeadline(new Promise(() => {}), 1, () => new Error('late'))).rejects.toThrow('late');
  });
});
