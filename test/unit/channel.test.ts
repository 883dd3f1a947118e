import { EventEmitter } from 'node:events';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { KernelChannel } from '../../src/eval/kernel/channel.js';
import { RAW_MARK, RAW_MARK_END } from '../../src/eval/kernel/rawDemux.js';
import type { KernelProcess } from '../../src/eval/kernel/spawn.js';
import { silentLogger } from '../../src/eval/logger.js';
import type { Frame } from '../../src/eval/protocol/index.js';

/** A js kernel process made of in-memory streams. */
function fakeJsProcess() {
  const child = Object.assign(new EventEmitter(), { pid: undefined, stdio: [], kill: () => true });
  const streams = { frames: new PassThrough(), stderr: new PassThrough(), rawStdout: new PassThrough() };
  const proc = { child, executable: 'node', requests: new PassThrough(), syncToken: 'tok', ...streams };
  return { proc: proc as unknown as KernelProcess, ...streams };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('the kernel channel', () => {
  it("gives raw output read before the cell's `started` frame to that cell, and holds `done` for the markers", async () => {
    const { proc, frames: frameStream, stderr, rawStdout } = fakeJsProcess();
    const frames: Frame[] = [];
    let started = false;
    const channel = new KernelChannel(
      proc,
      {
        onFrame: (frame) => {
          if (frame.type === 'started') {
            started = true;
            frames.push(frame);
            channel.releaseRaw();
            return;
          }
          frames.push(frame);
        },
        rawOwner: () => (started ? 'c1' : undefined),
        onProtocolError: () => {},
      },
      { name: 'k', label: 'JavaScript', logger: silentLogger, trace: false },
    );
    // fd 1 is read before fd 3 carried `started`: the output waits for it.
    rawStdout.write('early\n');
    await tick();
    expect(frames).toEqual([]);
    frameStream.write(`${JSON.stringify({ type: 'started', id: 'c1' })}\n`);
    await tick();
    frameStream.write(
      `${JSON.stringify({ type: 'done', id: 'c1', status: 'ok', executionCount: 1, cancelled: false, rawSync: true })}\n`,
    );
    await tick();
    // `done` waits for both markers.
    expect(frames.map((f) => f.type)).toEqual(['started', 'stdout']);
    rawStdout.write(`late\n${RAW_MARK}tok:c1${RAW_MARK_END}`);
    stderr.write(`${RAW_MARK}tok:c1${RAW_MARK_END}`);
    await tick();
    expect(frames).toEqual([
      { type: 'started', id: 'c1' },
      { type: 'stdout', id: 'c1', data: 'early\n' },
      { type: 'stdout', id: 'c1', data: 'late\n' },
      { type: 'done', id: 'c1', status: 'ok', executionCount: 1, cancelled: false, rawSync: true },
    ]);
    channel.finishStreams();
  });
});
