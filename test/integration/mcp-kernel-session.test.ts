/**
 * One named session of an MCP connection (src/modes/mcp/kernelSession.ts) on its own: its queue of
 * tool calls, its eval calls on real kernels (every call's output in its result, the first call's
 * and the later ones': one path), what the next result is told (a cancelled call, a kernel the
 * model already heard had ended), restarts, and the kernels it counts toward the server's cap.
 */
import { mkdtemp, realpath } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { CellResult } from '../../src/eval/index.js';
import { DEFAULT_SETTINGS } from '../../src/eval/settings.js';
import { KernelSession } from '../../src/modes/mcp/kernelSession.js';
import { waitFor } from '../helpers/kernel.js';

const sessions: KernelSession[] = [];
afterEach(async () => {
  await Promise.all(sessions.splice(0).map((s) => s.dispose()));
});

async function open(name = 'main'): Promise<KernelSession> {
  const cwd = await realpath(await mkdtemp(join(tmpdir(), 'omp-kernel-session-')));
  const server = new Server({ name: 'test', version: '1' }, { capabilities: { tools: {} } });
  const session = new KernelSession(
    name,
    cwd,
    { ...DEFAULT_SETTINGS, 'sandbox.mode': 'off', 'python.interpreter': '/usr/bin/python3' },
    server,
  );
  sessions.push(session);
  return session;
}

const py = (code: string, extra: Record<string, unknown> = {}) => ({
  language: 'py' as const,
  code,
  ...extra,
});
const evalCall = (
  session: KernelSession,
  cells: ReturnType<typeof py>[],
  signal = new AbortController().signal,
) => session.runCells({ cells }, { signal, env: process.env });

describe('KernelSession: its queue of calls', () => {
  it('runs calls one at a time in the order they came; a call that fails does not stop the next', async () => {
    const session = await open();
    const log: string[] = [];
    let release!: () => void;
    const first = session.enqueue(async () => {
      log.push('first starts');
      await new Promise<void>((resolve) => (release = resolve));
      log.push('first ends');
      throw new Error('first failed');
    });
    const second = session.enqueue(async () => {
      log.push('second');
      return 2;
    });
    await waitFor(() => log.length === 1, 60_000, 'the first call to start');
    expect(session.alone).toBe(false); // the second waits behind it
    release();
    await expect(first).rejects.toThrow('first failed');
    expect(await second).toBe(2);
    expect(log).toEqual(['first starts', 'first ends', 'second']);
    const third = session.enqueue(async () => session.alone);
    expect(await third).toBe(true);
  });
});

describe('KernelSession: eval calls on real kernels', { timeout: 120_000 }, () => {
  it('gives every call its cells’ output, the first call (which makes the retained session) and the later ones', async () => {
    const session = await open();
    const first = await evalCall(session, [py('x = 41\nprint("first call")')]);
    expect(first.cells.map((c) => [c.status, c.text])).toEqual([['ok', 'first call\n']]);
    for (const call of [2, 3]) {
      const later = await evalCall(session, [py(`print("call ${call}")`), py('x + 1')]);
      expect(
        later.cells.map((c) => c.text),
        `call ${call}`,
      ).toEqual([`call ${call}\n`, '42\n']);
    }
    // A cell's output beyond its share of the call's budget is cut the same way in a later call.
    const big = [py('print("a" * 100_000)'), py('print("b" * 100_000)')];
    const shape = (cells: CellResult[]) => cells.map((c) => [c.text.length, c.truncation !== undefined]);
    const cut = shape((await evalCall(session, big)).cells);
    expect(shape((await evalCall(session, big)).cells)).toEqual(cut);
    expect(cut.every(([length, truncated]) => (length as number) < 100_000 && truncated)).toBe(true);
  });

  it('counts the kernels a call will start before they run, and the live ones after', async () => {
    const session = await open();
    expect(session.kernelsToStart({ cells: [py('1')] }, process.env)).toEqual(['py']);
    let during = -1;
    await session.holdingKernels({ cells: [py('1')] }, async () => {
      during = session.kernelCount();
    });
    expect(during).toBe(1);
    expect(session.kernelCount()).toBe(0);
    await evalCall(session, [py('1')]);
    expect(session.liveLanguages()).toEqual(['py']);
    expect(session.kernelCount()).toBe(1);
    expect(session.kernelsToStart({ cells: [py('1')] }, process.env)).toEqual([]);
    expect(await session.running()).toEqual(['py']);
  });

  it('tells the next call what became of a cancelled one, once', async () => {
    const session = await open();
    session.noteCancelledCall([
      { index: 0, language: 'py', status: 'cancelled', kernelKilled: false } as CellResult,
      { index: 1, language: 'js', status: 'cancelled', kernelKilled: true } as CellResult,
    ]);
    expect(session.takeNotices()).toEqual([
      'The previous eval call was cancelled: its cell 1 was interrupted, and the Python kernel kept its state.',
      'The previous eval call was cancelled and its cell 2 did not respond to the interrupt, so the JavaScript kernel was killed: the JavaScript state is gone, and the next js cell runs in a new kernel.',
    ]);
    expect(session.takeNotices()).toEqual([]);
    session.tell('something else');
    expect(session.takeNotices()).toEqual(['something else']);
  });

  it('does not say again that a kernel ended when the model read it in the result it was given', async () => {
    const session = await open();
    await evalCall(session, [py('1')]);
    const died = await evalCall(session, [py('import os\nos._exit(3)')]);
    expect(died.cells[0]?.status).not.toBe('ok');
    session.delivered(died.cells);
    const next = await evalCall(session, [py('"fresh"')]);
    expect(next.cells[0]?.text).toBe("'fresh'\n");
    expect(next.cells[0]?.notices.join('\n')).not.toMatch(/The previous Python kernel/);
  });

  it('says a kernel ended in the next result when the model never read the result that said so', async () => {
    const session = await open();
    await evalCall(session, [py('1')]);
    await evalCall(session, [py('import os\nos._exit(3)')]); // (its result never delivered)
    const next = await evalCall(session, [py('"fresh"')]);
    expect(next.cells[0]?.notices.join('\n')).toMatch(/The previous Python kernel/);
  });

  it('restarts: the state is gone, and the next call runs in a fresh kernel', async () => {
    const session = await open();
    await evalCall(session, [py('kept = 1')]);
    await session.restart();
    expect(await session.running()).toEqual([]);
    const after = await evalCall(session, [py('"kept" in globals()')]);
    expect(after.cells[0]?.text).toBe('False\n');
  });
});
