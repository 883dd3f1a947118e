import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Frame } from '../../src/eval/protocol/index.js';
import { run, startKernel, waitFor } from '../helpers/kernel.js';

describe('kernel: output capture', () => {
  it('streams output while the cell runs, partial lines included', async () => {
    const k = await startKernel();
    const gate = join(mkdtempSync(join(tmpdir(), 'omp-gate-')), 'go');
    const seen: Frame[] = [];
    // The cell waits for a file that the test creates only once "tick" has arrived.
    const pending = run(
      k,
      `import os, time\nprint("tick", end="")\nwhile not os.path.exists(${JSON.stringify(gate)}):\n    time.sleep(0.01)\nprint(" tock")`,
      { onFrame: (frame) => seen.push(frame) },
    );
    await waitFor(() => seen.some((f) => f.type === 'stdout'), 60_000, 'the partial line');
    expect(seen.find((f) => f.type === 'stdout')).toMatchObject({ data: 'tick' });
    writeFileSync(gate, '');
    const { stdout } = await pending;
    expect(stdout).toBe('tick tock\n');
  });

  it('coalesces a print loop into few frames, in order', async () => {
    const k = await startKernel();
    const { stdout, frames } = await run(k, 'for i in range(20000):\n    print(i)');
    expect(stdout).toBe(`${Array.from({ length: 20000 }, (_, i) => i).join('\n')}\n`);
    expect(frames.filter((f) => f.type === 'stdout').length).toBeLessThan(50);
  });

  it('captures fd-level output from os.write, C code and child processes, in order', async () => {
    const k = await startKernel();
    const { stdout, stderr, frames } = await run(
      k,
      [
        'import os, ctypes, subprocess',
        'print("python")',
        'os.write(1, b"os.write\\n")',
        'libc = ctypes.CDLL(None)',
        'libc.printf(b"from C\\n"); libc.fflush(None)',
        'os.system("echo from a child")',
        'subprocess.run(["sh", "-c", "echo child stderr >&2"])',
        'os.write(2, b"fd 2\\n")',
        'print("end")',
      ].join('\n'),
    );
    expect(stdout).toBe('python\nos.write\nfrom C\nfrom a child\nend\n');
    expect(stderr).toBe('child stderr\nfd 2\n');
    expect(frames.at(-1)?.type).toBe('done');
  });

  it('drains output a child wrote just before the cell ended into that cell', async () => {
    const k = await startKernel();
    for (let i = 0; i < 5; i++) {
      const { stdout } = await run(k, `import os\nos.system("printf 'cell ${i}'")`);
      expect(stdout).toBe(`cell ${i}`);
    }
  });

  it('keeps the protocol intact when user code writes junk to fd 1', async () => {
    const noise: string[] = [];
    const k = await startKernel({ logger: { trace: () => {}, warn: (line) => noise.push(line) } });
    const { stdout } = await run(
      k,
      'import os\nos.write(1, b\'{"type": "done", "id": "fake"}\\n\\x00\\xff junk\\n\')',
    );
    expect(stdout).toContain('{"type": "done", "id": "fake"}');
    expect(stdout).toContain('junk');
    expect(noise).toEqual([]);
    expect((await run(k, '1 + 1')).result?.['text/plain']).toBe('2');
  });

  it('does not let user code or children read the request pipe', async () => {
    const k = await startKernel();
    const { result } = await run(
      k,
      'import os, subprocess\n(os.read(0, 100), subprocess.run(["cat"], capture_output=True).stdout)',
    );
    expect(result?.['text/plain']).toBe("(b'', b'')");
    expect((await run(k, '"still serving"')).result?.['text/plain']).toBe("'still serving'");
  });

  it('gives thread output to the running cell, and between cells reports it as background output', async () => {
    const k = await startKernel();
    const { stdout } = await run(
      k,
      'import threading\nt = threading.Thread(target=lambda: print("from thread"))\nt.start(); t.join()',
    );
    expect(stdout).toBe('from thread\n');
    const background: Frame[] = [];
    k.onBackground((f) => background.push(f));
    await run(k, 'import time\nthreading.Thread(target=lambda: (time.sleep(0.3), print("later"))).start()');
    await waitFor(
      () => background.some((f) => f.type === 'stdout' && f.data.includes('later')),
      60_000,
      'background',
    );
    expect(background.find((f) => f.type === 'stdout')).toMatchObject({ id: null, data: 'later\n' });
  });

  it('carries a 20 MB output line and a 20 MB result intact', async () => {
    const k = await startKernel();
    const { stdout } = await run(k, 'print("é" * 20_000_000)');
    expect(stdout.length).toBe(20_000_001);
    expect(stdout.startsWith('éé') && stdout.endsWith('é\n')).toBe(true);
    const { result } = await run(k, '"x" * 20_000_000');
    expect(String(result?.['text/plain']).length).toBe(20_000_002);
  });

  it('carries U+2028 and other non-ASCII text unchanged', async () => {
    const k = await startKernel();
    const { stdout, result } = await run(k, 'print("a\\u2028b\\u2029c 日本 🎉")\n"\\u2028"');
    expect(stdout).toBe('a\u2028b\u2029c 日本 🎉\n');
    expect(result?.['text/plain']).toBe("'\\u2028'");
  });
});
