/**
 * A local kernel's cell queue (src/eval/kernel/cellQueue.ts) on its own: a real state machine, and
 * a host that records what the queue asks of its kernel (the queue's seam: no process here).
 */
import { describe, expect, it } from 'vitest';
import { CellQueue, type CellQueueHost } from '../../src/eval/kernel/cellQueue.js';
import { KernelStateMachine } from '../../src/eval/kernel/state.js';
import type { CellOutcome, KernelExit } from '../../src/eval/kernel/types.js';
import { executeRequest, type Frame } from '../../src/eval/protocol/index.js';

/** A queue, its state machine, and a log of what it asked of its kernel. */
function queueOf(state: 'starting' | 'idle' = 'idle') {
  const machine = new KernelStateMachine();
  if (state === 'idle') machine.fire('ready');
  const log: string[] = [];
  let exit: KernelExit | undefined;
  const host: CellQueueHost = {
    label: 'Python',
    exit: () => exit,
    write: (request) => log.push(`write ${request.id}`),
    interrupt: () => log.push('interrupt'),
    signalInterrupt: () => log.push('SIGINT'),
    ended: () => log.push('ended'),
  };
  const queue = new CellQueue(machine, host);
  const settled = new Map<string, CellOutcome>();
  const enqueue = (id: string, options: Parameters<CellQueue['enqueue']>[1] = {}) => {
    const outcome = queue.enqueue(executeRequest(id, `cell ${id}`), options);
    void outcome.then((o) => settled.set(id, o));
    return outcome;
  };
  const done = (id: string, executionCount: number, status: 'ok' | 'error' = 'ok'): Frame => ({
    type: 'done',
    id,
    status,
    executionCount,
    cancelled: false,
  });
  return {
    machine,
    queue,
    log,
    settled,
    enqueue,
    done,
    setExit: (e: KernelExit) => {
      exit = e;
    },
  };
}

/** Lets the outcomes' then() callbacks run. */
const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('CellQueue', () => {
  it('sends one cell at a time, in order, the next only after the running one’s done frame', async () => {
    const { queue, machine, log, settled, enqueue, done } = queueOf();
    const sent: string[] = [];
    const a = enqueue('a', { onSent: () => sent.push('a') });
    void enqueue('b', { onSent: () => sent.push('b') });
    void enqueue('c', { onSent: () => sent.push('c') });
    expect(log).toEqual(['write a']);
    expect(machine.state).toBe('busy');
    expect(queue.current?.request.id).toBe('a');

    expect(queue.deliver(done('a', 1))).toBe(true);
    expect(await a).toEqual({ id: 'a', status: 'ok', executionCount: 1, cancelled: false, killed: false });
    expect(log).toEqual(['write a', 'ended', 'write b']);
    expect(queue.deliver(done('b', 2, 'error'))).toBe(true);
    expect(queue.deliver(done('c', 3))).toBe(true);
    await flush();
    expect([...settled.keys()]).toEqual(['a', 'b', 'c']);
    expect(settled.get('b')?.status).toBe('error');
    expect(queue.executionCount).toBe(3);
    expect(sent).toEqual(['a', 'b', 'c']);
    expect(machine.state).toBe('idle');
  });

  it('gives a cell the frames that are its own, and refuses another cell’s', () => {
    const { queue, enqueue } = queueOf();
    const frames: Frame[] = [];
    void enqueue('a', { onFrame: (f) => frames.push(f) });
    void enqueue('b');
    expect(queue.deliver({ type: 'stdout', id: 'b', data: 'not yet' })).toBe(false);
    expect(queue.deliver({ type: 'stdout', id: 'a', data: 'hi' })).toBe(true);
    expect(frames).toEqual([{ type: 'stdout', id: 'a', data: 'hi' }]);
  });

  it('keeps the first error frame of a cell as its error', async () => {
    const { queue, enqueue, done } = queueOf();
    const a = enqueue('a');
    for (const ename of ['NameError', 'ValueError'])
      queue.deliver({ type: 'error', id: 'a', ename, evalue: 'x', traceback: [ename] });
    queue.deliver(done('a', 1, 'error'));
    expect((await a).error).toEqual({ ename: 'NameError', evalue: 'x', traceback: ['NameError'] });
  });

  it('sends the init’s cell while the kernel starts, but counts its wait as the start-up’s (no onSent)', async () => {
    const { queue, machine, log, enqueue, done } = queueOf('starting');
    let sent = false;
    const init = enqueue('init', { onSent: () => (sent = true) });
    void enqueue('first');
    expect(log).toEqual(['write init']);
    expect(machine.state).toBe('starting');
    expect(sent).toBe(false);
    queue.deliver(done('init', 0));
    await init;
    // Still starting: the next cell goes too.
    expect(log).toEqual(['write init', 'ended', 'write first']);
  });

  it('takes no cell in a dead kernel: the outcome names the kernel and how it ended', async () => {
    const { machine, enqueue, setExit, log } = queueOf();
    machine.fire('exited');
    setExit({ code: 1, signal: null, reason: 'died', stderrTail: 'Segmentation fault\n' });
    const outcome = await enqueue('a');
    expect(outcome.error?.ename).toBe('KernelDied');
    expect(outcome.error?.evalue).toMatch(/^The Python kernel is not running \(/);
    expect(outcome.error?.traceback).toEqual(['Segmentation fault']);
    expect(log).toEqual([]);
  });

  it('cancels a cell whose signal already fired, and a queued one whose signal fires, without sending it', async () => {
    const { queue, log, enqueue, done } = queueOf();
    const aborted = new AbortController();
    aborted.abort();
    expect(await enqueue('early', { signal: aborted.signal })).toMatchObject({
      cancelled: true,
      status: 'error',
    });
    void enqueue('a');
    const later = new AbortController();
    const b = enqueue('b', { signal: later.signal });
    void enqueue('c');
    later.abort();
    expect(await b).toMatchObject({ id: 'b', cancelled: true });
    queue.deliver(done('a', 1));
    expect(log).toEqual(['write a', 'ended', 'write c']);
  });

  it('interrupts the running cell when its signal fires (the cell ends by its done frame, not at once)', async () => {
    const { queue, log, enqueue, done, settled } = queueOf();
    const signal = new AbortController();
    const a = enqueue('a', { signal: signal.signal });
    signal.abort();
    expect(log).toEqual(['write a', 'interrupt']);
    await flush();
    expect(settled.has('a')).toBe(false);
    queue.deliver(done('a', 1, 'error'));
    expect(await a).toMatchObject({ status: 'error', cancelled: false });
    expect(log).toEqual(['write a', 'interrupt', 'ended']);
  });

  it('sends the SIGINT of an interrupt that came before the cell started when its started frame comes', () => {
    const { queue, log, enqueue } = queueOf();
    void enqueue('a');
    if (queue.current) queue.current.interruptPending = true;
    queue.deliver({ type: 'started', id: 'a' });
    expect(log).toEqual(['write a', 'SIGINT']);
    expect(queue.current?.started).toBe(true);
  });

  it('ends the running cell and every queued one when the process exits', async () => {
    const { queue, enqueue } = queueOf();
    const a = enqueue('a');
    const b = enqueue('b');
    queue.deliver({ type: 'started', id: 'a' });
    queue.endAll({ code: null, signal: 'SIGKILL', reason: 'died', stderrTail: 'last words\n' }, undefined);
    const [ran, queued] = await Promise.all([a, b]);
    expect(ran.error?.evalue).toMatch(/^The Python kernel died while running this cell/);
    // A started cell had the kernel's last stderr as its own output: not repeated.
    expect(ran.error?.traceback).toEqual([]);
    expect(queued.error?.evalue).toMatch(/^The kernel exited before this cell ran/);
    expect(queued.error?.traceback).toEqual(['last words']);
    expect(queue.current).toBeUndefined();
  });

  it('marks the running cell killed and cancelled when the kernel was killed after an unanswered interrupt', async () => {
    const { queue, enqueue } = queueOf();
    const a = enqueue('a');
    queue.endAll({ code: null, signal: 'SIGKILL', reason: 'interrupt-timeout', stderrTail: '' }, undefined);
    expect(await a).toMatchObject({ cancelled: true, killed: true });
  });
});
