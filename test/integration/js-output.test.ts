/**
 * The JavaScript kernel's print path (issue 17, speed): console output is batched into few
 * frames, yet a line printed just before a long synchronous computation arrives while it runs,
 * and the order of stdout, stderr and child processes' output is kept.
 */
import { describe, expect, it } from 'vitest';
import type { Frame } from '../../src/eval/protocol/index.js';
import { interruptAfterReady, run, startKernel } from '../helpers/kernel.js';

const startJs = () => startKernel({ language: 'js' });
const streams = (frames: Frame[]) =>
  frames.flatMap((f) => (f.type === 'stdout' || f.type === 'stderr' ? [[f.type, f.data]] : []));

describe('js kernel: output', () => {
  it('batches many lines into few frames, complete and in order', async () => {
    const k = await startJs();
    // The pump thread starts after the kernel is ready; until it runs, each write is a frame.
    const frameCount = async (n: number) =>
      (await run(k, `for (let i = 0; i < ${n}; i++) console.log(i)`)).frames.filter(
        (f) => f.type === 'stdout',
      ).length;
    for (let tries = 0; (await frameCount(2000)) > 200; tries++) expect(tries).toBeLessThan(100);
    const lines = 100_000;
    const r = await run(k, `for (let i = 0; i < ${lines}; i++) console.log("line " + i)`);
    const expected = Array.from({ length: lines }, (_, i) => `line ${i}\n`).join('');
    expect(r.stdout).toBe(expected);
    const frames = r.frames.filter((f) => f.type === 'stdout').length;
    expect(frames).toBeLessThan(lines / 50);
  });

  it("a promise the cell rejects and leaves unhandled is reported in the cell, as Node's REPL does", async () => {
    const k = await startJs();
    const r = await run(k, 'Promise.reject(new Error("boom")); console.log("after")');
    // Its output, not background output for whoever listens after the cell.
    expect(r.stdout).toBe('after\n');
    expect(
      r.frames.some((f) => f.type === 'stderr' && f.id !== null && /^Uncaught Error: boom\n/.test(f.data)),
    ).toBe(true);
  });

  it('delivers a line printed before a long synchronous computation while it runs', async () => {
    const k = await startJs();
    // The host waits for "ready" before it interrupts: were the line held until the loop
    // ends, the cell would never end.
    const { outcome, frames } = await interruptAfterReady(k, 'console.log("ready"); for (;;) {}');
    expect(outcome.cancelled).toBe(true);
    expect(streams(frames)).toEqual([['stdout', 'ready\n']]);
  });

  it('keeps the order of console output, and of what child processes write, each in itself', async () => {
    const k = await startJs();
    const r = await run(
      k,
      [
        'console.log("one");',
        'console.error("two");',
        'require("node:child_process").execSync("echo three", { stdio: "inherit" });',
        'console.log("four");',
        'require("node:fs").writeSync(1, "five\\n");',
        'process.stdout.write("six\\n");',
      ].join('\n'),
    );
    // The kernel writes what a cell printed before a child process starts; the host reads the
    // child's output from another pipe, so only the order within each source is certain. Raw
    // text read together may come as one piece: compare lines.
    const lines = streams(r.frames)
      .map(([, text]) => text)
      .join('')
      .split('\n');
    expect(lines.filter((l) => ['one', 'two', 'four', 'six'].includes(l))).toEqual([
      'one',
      'two',
      'four',
      'six',
    ]);
    expect(lines.filter((l) => l === 'three' || l === 'five')).toEqual(['three', 'five']);
  });
});
