/**
 * Interrupting a remote kernel's cell (src/eval/remote/remoteInterrupts.ts) against a real Jupyter
 * server: a cell that waits behind another client's work on the same kernel is not interrupted
 * until it starts (the other client's cell is not ours to stop); once it runs, the interrupt that
 * waited is sent.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OutputEvent, Session } from '../../src/eval/index.js';
import { makeExecutor } from '../helpers/executor.js';
import { type JupyterServer, startJupyterServer } from '../helpers/jupyter.js';
import { waitFor } from '../helpers/kernel.js';

let server: JupyterServer;
beforeAll(async () => {
  server = await startJupyterServer();
});
afterAll(async () => {
  await server?.stop();
});

/** A session on the server's kernel `kernelId` (a new one when unset). */
const sessionOn = (kernelId?: string) =>
  makeExecutor({
    settings: {
      'jupyter.url': server.url,
      'jupyter.token': server.token,
      ...(kernelId ? { 'jupyter.kernelId': kernelId } : {}),
    },
    interruptEscalationMs: 60_000,
  }).session();

/** Starts one cell; its events as they come, and its result. */
function start(session: Session, code: string) {
  const events: OutputEvent[] = [];
  const result = session
    .run([{ language: 'py', code }], { defaultTimeout: null, onEvent: (_, e) => void events.push(e) })
    .then(([r]) => r);
  const printed = () => events.flatMap((e) => (e.kind === 'stdout' ? [e.text] : [])).join('');
  return { events, result, printed };
}

describe('remote interrupts', { timeout: 180_000 }, () => {
  it("waits for the cell to start: another client's cell before it runs on, ours is interrupted once it runs", async () => {
    const first = await sessionOn();
    // (the kernel runs once a first cell has run)
    expect((await start(first, '1 + 1').result)?.status).toBe('ok');
    const kernelId = first.kernel?.remote?.kernelId as string;
    expect(kernelId).toBeTruthy();
    const second = await sessionOn(kernelId);
    // (connected before theirs runs: the kernel answers a new client's kernel_info between cells)
    expect((await start(second, '2 + 2').result)?.status).toBe('ok');

    const flag = join(mkdtempSync(join(tmpdir(), 'omp-remote-int-')), 'go');
    const theirs = start(
      first,
      `import os, time\nprint("theirs runs", flush=True)\nwhile not os.path.exists(${JSON.stringify(flag)}): time.sleep(0.02)\nprint("theirs done")`,
    );
    await waitFor(() => theirs.printed().includes('theirs runs'), 60_000, 'the other client’s cell to run');
    const ours = start(second, 'import time\nprint("ours runs", flush=True)\nwhile True: time.sleep(0.05)');
    // Ours waits behind theirs on the server: interrupted now, it is not started yet.
    await waitFor(() => second.kernel?.state === 'busy', 60_000, 'our cell to be sent');
    expect(ours.events.some((e) => e.kind === 'started')).toBe(false);
    second.interrupt();
    writeFileSync(flag, '');
    // Theirs ends as it would have: the interrupt was not sent while it ran.
    const theirResult = await theirs.result;
    expect(theirResult?.status).toBe('ok');
    expect(theirs.printed()).toBe('theirs runs\ntheirs done\n');
    // Ours starts, and the interrupt that waited reaches it.
    const ourResult = await ours.result;
    expect(ours.events.some((e) => e.kind === 'started')).toBe(true);
    expect(ourResult?.status).toBe('cancelled');
    expect(ourResult?.error?.ename).toBe('KeyboardInterrupt');
  });
});
