/**
 * The kernels of one session key (src/eval/executor/kernelSet.ts) on real kernels: their states
 * published to subscribers, output between cells passed to listeners or kept for the next result
 * when nobody listens, and shutting down one language or all (a kernel still starting too).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { KernelSet, type KernelStatus } from '../../src/eval/executor/kernelSet.js';
import type { Frame } from '../../src/eval/protocol/index.js';
import { run, startKernel, waitFor } from '../helpers/kernel.js';

const dir = mkdtempSync(join(tmpdir(), 'omp-kernel-set-'));
let flags = 0;

/** A cell that leaves a thread printing `text` once the test creates the returned flag file. */
function printLater(text: string) {
  const flag = join(dir, `flag${++flags}`);
  const code = [
    'import os, threading, time',
    'def later():',
    `    while not os.path.exists(${JSON.stringify(flag)}): time.sleep(0.02)`,
    `    print(${JSON.stringify(text)}, flush=True)`,
    'threading.Thread(target=later, daemon=True).start()',
  ].join('\n');
  return { code, release: () => writeFileSync(flag, '') };
}

/** Waits until the output `set` kept while nobody listened holds `text`; all it kept by then. */
async function keptUntil(set: KernelSet, text: string): Promise<string> {
  let kept = '';
  await waitFor(
    () => {
      kept += set.takeBackground() ?? '';
      return kept.includes(text);
    },
    60_000,
    `"${text}" kept`,
  );
  return kept;
}

describe('KernelSet', { timeout: 120_000 }, () => {
  it("publishes each kernel's states, and 'none' once it left the set", async () => {
    const set = new KernelSet('key', dir, undefined, undefined);
    const seen: [string, KernelStatus][] = [];
    const off = set.onKernelState((language, state) => seen.push([language, state]));
    const kernel = await startKernel();
    set.add('py', kernel);
    expect(set.get('py')).toBe(kernel);
    expect(set.all()).toEqual([kernel]);
    expect(seen).toEqual([['py', 'idle']]);
    await run(kernel, '1 + 1');
    expect(seen).toEqual([
      ['py', 'idle'],
      ['py', 'busy'],
      ['py', 'idle'],
    ]);
    expect(set.remove('py')).toBe(kernel);
    expect(set.remove('py')).toBeUndefined();
    expect(seen.at(-1)).toEqual(['py', 'none']);
    expect(set.get('py')).toBeUndefined();
    // (a kernel out of the set is not followed: its states are no longer published)
    const count = seen.length;
    await run(kernel, '2 + 2');
    off();
    expect(seen).toHaveLength(count);
  });

  it('passes output between cells to its listeners, and keeps it for the next result when nobody listens', async () => {
    const set = new KernelSet('key', dir, undefined, undefined);
    const kernel = await startKernel();
    set.add('py', kernel);
    // Nobody listens: kept, and taken once.
    const unheard = printLater('kept for later');
    await run(kernel, unheard.code);
    expect(set.takeBackground()).toBeUndefined();
    unheard.release();
    expect(await keptUntil(set, 'kept for later')).toBe('kept for later\n');
    expect(set.takeBackground()).toBeUndefined();
    // A listener hears it, and nothing is kept.
    const frames: Frame[] = [];
    const off = set.onBackground((frame) => frames.push(frame));
    const heard = printLater('heard now');
    await run(kernel, heard.code);
    heard.release();
    await waitFor(
      () => frames.some((f) => f.type === 'stdout' && f.data.includes('heard now')),
      60_000,
      'the output',
    );
    expect(set.takeBackground()).toBeUndefined();
    off();
  });

  it('keeps what a thread writes on stderr, and shuts down one language or all', async () => {
    const set = new KernelSet('key', dir, undefined, undefined);
    const py = await startKernel();
    const other = await startKernel();
    set.add('py', py);
    set.add('js', other);
    const flag = join(dir, 'raise');
    await run(
      py,
      [
        'import os, threading, time, sys',
        'def later():',
        `    while not os.path.exists(${JSON.stringify(flag)}): time.sleep(0.02)`,
        '    sys.stderr.write("oops in a thread\\n"); sys.stderr.flush()',
        'threading.Thread(target=later, daemon=True).start()',
      ].join('\n'),
    );
    writeFileSync(flag, '');
    expect(await keptUntil(set, 'oops in a thread')).toBe('oops in a thread\n');

    await set.shutdown('js');
    expect(other.state).toBe('dead');
    expect(set.all()).toEqual([py]);
    // A kernel still starting joins the set and is shut down with the rest.
    const starting = startKernel().then((k) => {
      set.add('js', k);
      return k;
    });
    set.starting.set('js', starting);
    await set.shutdown();
    expect(py.state).toBe('dead');
    expect((await starting).state).toBe('dead');
    expect(set.all()).toEqual([]);
  });
});
