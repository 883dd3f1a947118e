/**
 * `omp-eval mcp` over stdio and a signal while the client keeps stdin open (issue 42, defect 3):
 * the call in flight is answered with an error, the kernels are shut down and the server exits.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/kernel.js';
import { evalCell, kernelPid, pidAlive, startStdio, stopAll } from '../helpers/mcp.js';

afterAll(stopAll);

describe('omp-eval mcp over stdio, signalled', { timeout: 90_000 }, () => {
  for (const [signal, code] of [
    ['SIGTERM', 143],
    ['SIGINT', 130],
    ['SIGHUP', 129],
  ] as const) {
    it(`${signal} answers the call in flight with an error and exits with stdin still open`, async () => {
      const server = await startStdio({ args: ['--python', '/usr/bin/python3', 'mcp'] });
      const pid = await kernelPid(server.client);
      let answer: CallToolResult | undefined;
      let failure: Error | undefined;
      let started = false;
      const call = server.client
        .callTool(
          {
            name: 'eval',
            arguments: { cells: [{ language: 'py', code: 'log("sleeping")\nimport time\ntime.sleep(600)' }] },
          },
          undefined,
          {
            timeout: 600_000,
            onprogress: () => {
              started = true;
            },
          },
        )
        .then(
          (r) => {
            answer = r as CallToolResult;
          },
          (err: Error) => {
            failure = err;
          },
        );
      await waitFor(() => started, 30_000, 'the cell to start');
      server.child.kill(signal);
      // stdin stays open: the test does not end it.
      expect(await server.exited).toEqual({ code, signal: null });
      await call;
      expect(answer).toBeUndefined();
      expect(failure?.message).toMatch(new RegExp(`shutting down \\(${signal}\\)`));
      await waitFor(() => !pidAlive(pid), 10_000, 'the kernel to end');
      expect(server.stderr()).not.toMatch(/Error:|at .*\.js:\d+/);
    });
  }

  it('a signal with no call running exits too', async () => {
    const server = await startStdio({ args: ['--python', '/usr/bin/python3', 'mcp'] });
    await evalCell(server.client, '1 + 1');
    server.child.kill('SIGTERM');
    expect(await server.exited).toEqual({ code: 143, signal: null });
  });
});
