/**
 * Follow an agent (issue 41) whose kernel is on a Jupyter server: `omp-eval mcp --jupyter` (a real
 * Jupyter server, Debian's, and its ipykernel) driven by the MCP SDK's client, and `omp-eval attach`
 * in a real pseudo-terminal. The person's cells and Ctrl-C reach the remote kernel as the agent's do.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type JupyterServer, runningKernels, startJupyterServer } from '../helpers/jupyter.js';
import { evalCell, startStdio, stopAll, textOf } from '../helpers/mcp.js';
import { openNotebook } from '../helpers/pty.js';

let jupyter: JupyterServer;
beforeAll(async () => {
  jupyter = await startJupyterServer();
});
afterAll(async () => {
  await stopAll();
  await jupyter?.stop();
});

const env = { XDG_RUNTIME_DIR: mkdtempSync(join(tmpdir(), 'omp-attach-remote-rt-')) };

describe('omp-eval attach to an agent whose kernel is remote', { timeout: 180_000 }, () => {
  it("shows the agent's remote cells, runs the person's cell in that kernel, and interrupts the agent's cell there", async () => {
    const { client } = await startStdio({
      args: ['--jupyter', jupyter.url, '--token', jupyter.token, 'mcp'],
      env,
    });
    expect(textOf(await evalCell(client, 'import os\nx = 41\nos.getpid()'))).toMatch(/^\d+$/);
    const [kernelId] = await runningKernels(jupyter);
    expect(kernelId).toBeDefined();

    const s = openNotebook(['attach'], { env, rows: 40, columns: 100 });
    try {
      await s.waitFor((t) => /✓ \[1\] agent #1 ok/.test(t), 'the history');

      // The person's cell runs in the server's kernel: the agent reads the name it defined.
      await s.run('y = x + 1');
      await s.waitFor((t) => /✓ \[2\] ok/.test(t), "the person's cell");
      const next = textOf(await evalCell(client, 'y'));
      expect(next).toMatch(/^\[A person following this session \(omp-eval attach\) ran a Python cell/);
      expect(next).toContain('It defined or changed y.');
      expect(next).toContain('42');
      // Still the one kernel on the server: nothing ran locally or in a second kernel.
      expect(await runningKernels(jupyter)).toEqual([kernelId]);

      // Ctrl-C in the notebook interrupts the agent's cell through the server; state is kept.
      const long = evalCell(client, 'import time\nwhile True: time.sleep(0.05)');
      await s.waitFor((t) => /\[\*\] agent #4 running/.test(t), "the agent's long cell");
      s.write('\x03');
      const interrupted = textOf(await long);
      expect(interrupted).toContain('KeyboardInterrupt');
      expect(interrupted).toContain(
        'A person following this session (omp-eval attach) interrupted this cell with Ctrl-C.',
      );
      expect(textOf(await evalCell(client, 'y * 2'))).toContain('84');

      s.write('\x04');
      await s.ended();
      expect(s.all()).toMatch(/detached; the agent's session \d+\/1 keeps running/);
    } finally {
      s.kill();
    }
  });
});
