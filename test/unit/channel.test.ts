import { EventEmitter } from 'node:events';
import { PassThrough } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import { KernelChannel } from '../../src/eval/kernel/channel.js';
import type { KernelProcess } from '../../src/eval/launch/spawn.js';
import type { Logger } from '../../src/eval/logger.js';
import { type Frame, syncMark } from '../../src/eval/protocol/index.js';

const KEY = 'f00d';

/** A kernel process made of in-memory streams. */
function fakeProcess() {
  const child = Object.assign(new EventEmitter(), { pid: undefined, stdio: [], kill: () => true });
  const streams = { frames: new PassThrough(), stderr: new PassThrough(), rawStdout: new PassThrough() };
  const proc = { child, executable: 'python', requests: new PassThrough(), frameKey: KEY, ...streams };
  return { proc: proc as unknown as KernelProcess, ...streams };
}

const tick = () => new Promise((r) => setImmediate(r));
const keyed = (frame: Frame) => `\n${JSON.stringify({ key: KEY, ...frame })}\n`;

function open(opts: { rawSyncMs?: number; requestsReady?: Promise<void> } = {}) {
  const { requestsReady, ...channelOpts } = opts;
  const fake = fakeProcess();
  if (requestsReady) Object.assign(fake.proc, { requestsReady });
  const frames: Frame[] = [];
  const warnings: string[] = [];
  const logger: Logger = { trace: () => {}, warn: (line) => warnings.push(line) };
  let started = false;
  const channel = new KernelChannel(
    fake.proc,
    {
      onFrame: (frame) => {
        if (frame.type === 'started') started = true;
        if (frame.type === 'done') started = false;
        frames.push(frame);
      },
      rawOwner: () => (started ? 'c1' : null),
      onProtocolError: () => {},
    },
    // (text goes out once the turn's reads are done, as after a quiet spell: no throttle)
    { name: 'k', label: 'Python', logger, trace: false, rawIntervalMs: 0, ...channelOpts },
  );
  return { ...fake, channel, frames, warnings };
}

describe('the kernel channel', () => {
  it('holds requests until the kernel may read them, then sends them in order, and the end after them', async () => {
    let open_: () => void = () => {};
    const ready = new Promise<void>((resolve) => {
      open_ = resolve;
    });
    const { channel, proc } = open({ requestsReady: ready });
    const written: string[] = [];
    let ended = false;
    (proc.requests as PassThrough).on('data', (chunk: Buffer) => written.push(String(chunk)));
    (proc.requests as PassThrough).on('end', () => {
      ended = true;
    });
    channel.write({ type: 'is_complete', id: 'q1', code: '1+' });
    channel.write({ type: 'exit' });
    channel.endRequests();
    await tick();
    expect(written).toEqual([]);
    open_();
    await vi.waitFor(() => expect(ended).toBe(true));
    expect(
      written
        .join('')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).type),
    ).toEqual(['is_complete', 'exit']);
    channel.finishStreams();
  });

  it('sends no request and fails the start when the check before them fails', async () => {
    const { channel, proc } = open({ requestsReady: Promise.reject(new Error('cannot remove a pyc')) });
    const written: string[] = [];
    (proc.requests as PassThrough).on('data', (chunk: Buffer) => written.push(String(chunk)));
    channel.write({ type: 'exit' });
    await expect(channel.spawnFailed).rejects.toThrow('Could not start python: cannot remove a pyc');
    await tick();
    expect(written).toEqual([]);
    channel.finishStreams();
  });

  it("orders the raw pipes with the frames at the runner's barriers, whichever is read first", async () => {
    const { channel, frames, rawStdout, stderr, proc } = open();
    const frameStream = proc.frames as PassThrough;
    // fd 1 is read before fd 3 carried `started`: output before the marker is background,
    // output after it waits for `started`.
    rawStdout.write(`between cells\n${syncMark(KEY, 'f', 0)}early\n`);
    await tick();
    expect(frames).toEqual([{ type: 'stdout', id: null, data: 'between cells\n' }]);
    stderr.write(syncMark(KEY, 'f', 0));
    frameStream.write(keyed({ type: 'started', id: 'c1', sync: 0 }));
    await tick();
    // `done` waits for both markers.
    frameStream.write(
      keyed({ type: 'done', id: 'c1', status: 'ok', executionCount: 1, cancelled: false, sync: 1 }),
    );
    await tick();
    expect(frames.map((f) => f.type)).toEqual(['stdout', 'started', 'stdout']);
    rawStdout.write(`late\n${syncMark(KEY, 'f', 1)}`);
    stderr.write(`oops\n${syncMark(KEY, 'f', 1)}`);
    await tick();
    expect(frames.slice(1)).toEqual([
      { type: 'started', id: 'c1', sync: 0 },
      { type: 'stdout', id: 'c1', data: 'early\n' },
      { type: 'stdout', id: 'c1', data: 'late\n' },
      { type: 'stderr', id: 'c1', data: 'oops\n' },
      { type: 'done', id: 'c1', status: 'ok', executionCount: 1, cancelled: false, sync: 1 },
    ]);
    channel.finishStreams();
  });

  it('joins small reads of one turn into one frame, and passes a large read on in a frame of its own', async () => {
    const { channel, frames, rawStdout } = open();
    const large = `${'x'.repeat(20_000)}\n`;
    for (const text of ['a\n', 'b\n', large, large, 'c\n']) rawStdout.write(text);
    await tick();
    expect(frames).toEqual([
      { type: 'stdout', id: null, data: 'a\nb\n' },
      { type: 'stdout', id: null, data: large },
      { type: 'stdout', id: null, data: large },
      { type: 'stdout', id: null, data: 'c\n' },
    ]);
    channel.finishStreams();
  });

  it('drops a frame without the kernel key (a cell wrote it) and takes the key off the others', async () => {
    const { channel, frames, warnings, proc } = open();
    const frameStream = proc.frames as PassThrough;
    frameStream.write(
      `${JSON.stringify({ type: 'done', id: 'c1', status: 'ok', executionCount: 9, cancelled: false })}\n`,
    );
    frameStream.write(`{"partial line a cell left`);
    frameStream.write(keyed({ type: 'started', id: 'c2' }));
    await tick();
    expect(frames).toEqual([{ type: 'started', id: 'c2' }]);
    expect(warnings.join('\n')).toMatch(/without the kernel key/);
    channel.finishStreams();
  });

  it('lets a barrier go after rawSyncMs when its marker never comes (a cell moved fd 2)', async () => {
    // Only the barrier's timer is faked: the streams and the raw flush (setImmediate) stay real.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const { channel, frames, rawStdout, proc } = open({ rawSyncMs: 20 });
      rawStdout.write(syncMark(KEY, 'f', 0));
      (proc.frames as PassThrough).write(keyed({ type: 'started', id: 'c1', sync: 0 }));
      rawStdout.write('after\n');
      await tick();
      expect(frames).toEqual([]);
      vi.advanceTimersByTime(20);
      await tick();
      expect(frames).toEqual([
        { type: 'started', id: 'c1', sync: 0 },
        { type: 'stdout', id: 'c1', data: 'after\n' },
      ]);
      channel.finishStreams();
    } finally {
      vi.useRealTimers();
    }
  });

  it('passes what a barrier held on when the process ends', async () => {
    const { channel, frames, rawStdout } = open();
    rawStdout.write(`a${syncMark(KEY, 'r', 0)}b`);
    await tick();
    expect(frames).toEqual([{ type: 'stdout', id: null, data: 'a' }]);
    channel.finishStreams();
    expect(frames).toEqual([
      { type: 'stdout', id: null, data: 'a' },
      { type: 'stdout', id: null, data: 'b' },
    ]);
  });
});
