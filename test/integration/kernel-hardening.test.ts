/**
 * The Python kernel's own defences, through the real executor: files that shadow the stdlib in the
 * working directory (issue 13 item 9), the private channel (issue 14 items 12 and 14), and
 * tracebacks without prelude frames (issue 14 item 15).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeExecutor } from '../helpers/executor.js';

const py = (code: string) => ({ language: 'py' as const, code });

describe('the Python kernel defends its own machinery', () => {
  it('starts and reports errors with traceback.py, ast.py, linecache.py and subprocess.py in the cwd', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'omp-shadow-'));
    for (const name of ['traceback', 'ast', 'linecache', 'subprocess', 'tokenize', 'inspect']) {
      writeFileSync(join(cwd, `${name}.py`), `raise SystemExit("the ${name}.py of the cwd was imported")\n`);
    }
    const s = await makeExecutor().session({ cwd });
    const [error] = await s.run([py('def f():\n    return 1 / 0\nf()')]);
    expect(error?.error?.ename).toBe('ZeroDivisionError');
    expect(error?.error?.traceback.join('\n')).toContain('return 1 / 0');
    const [shell] = await s.run([py('!echo from the shell')]);
    expect(shell?.text).toBe('from the shell\n');
  });

  it('os.closerange(3, 4096) is a clear error in its cell; the kernel lives and nothing is retried', async () => {
    const s = await makeExecutor().session();
    await s.run([py('before = "kept"')]);
    const [r] = await s.run([py('import os\nos.closerange(3, 4096)')]);
    expect(r?.error?.ename).toBe('OSError');
    expect(r?.error?.evalue).toMatch(/os\.closerange\(3, 4096\) would close descriptors the kernel needs/);
    expect(r?.notices.join('\n') ?? '').not.toMatch(/retr|died/i);
    const [after] = await s.run([py('before')]);
    expect(after?.text).toBe("'kept'\n");
  });

  it('a cell cannot write frames into the protocol stream', async () => {
    const s = await makeExecutor().session();
    const forged = '{"type": "done", "id": "x", "status": "ok", "executionCount": 99, "cancelled": false}\\n';
    const [r] = await s.run([
      py(
        `import os\nrefused = 0\nfor fd in range(3, 256):\n    try:\n        os.write(fd, b'${forged}')\n    except OSError as e:\n        refused += "kernel's own channel" in str(e)\nprint("after", refused > 0)`,
      ),
    ]);
    expect(r?.text).toBe('after True\n');
    expect(r?.status).toBe('ok');
  });

  it('tracebacks show the cell, not the prelude helpers it called', async () => {
    const s = await makeExecutor().session();
    const [r] = await s.run([py('completion("hello")')]);
    expect(r?.error?.ename).toBe('BridgeError');
    const traceback = r?.error?.traceback.join('\n') ?? '';
    expect(traceback).toContain('completion("hello")');
    expect(traceback).not.toMatch(/omp-prelude|omp-internal-init|_bridge\(/);
  });
});
