/**
 * The server's caps as a client meets them, against the real `omp-eval mcp`: sessions and kernels
 * over all clients (--max-sessions, --max-kernels), and idle HTTP sessions bounded by the first.
 */
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.js';
import {
  evalCell,
  httpClient,
  startHttp,
  startStdio,
  stopAll,
  stopHttpServers,
  textOf,
} from '../helpers/mcp.js';

afterAll(async () => {
  await stopAll();
  await stopHttpServers();
});

/**
 * A cell that leaves a file named `name` in `dir` when it runs (a refused call runs none). The
 * server runs in `dir`, so that the sandbox lets it write there.
 */
const marks = (dir: string, name: string) => `open(${JSON.stringify(join(dir, name))}, "w").close()`;

const restart = (client: Client, args: Record<string, unknown>) =>
  client.callTool({ name: 'restart', arguments: args }) as Promise<CallToolResult>;

describe('the session cap (--max-sessions)', () => {
  it('refuses a new named session past the cap, naming the cap, the flag and restart; restart frees a place', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'omp-caps-'));
    const { client } = await startStdio({ args: ['mcp', '--max-sessions', '2'], cwd: dir });
    expect((await evalCell(client, marks(dir, 'default'))).isError).toBeFalsy();
    expect((await evalCell(client, marks(dir, 'a'), { session: 'a' })).isError).toBeFalsy();

    const refused = await evalCell(client, marks(dir, 'b'), { session: 'b' });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(
      /^Cannot open session "b": this server already has 2 sessions, its cap \(--max-sessions 2, setting mcp\.maxSessions\)/,
    );
    expect(textOf(refused)).toContain('Use a session you have ("default", "a")');
    expect(textOf(refused)).toContain('the "restart" tool');
    expect(textOf(refused)).toContain('omp-eval mcp --max-sessions N');
    expect(existsSync(join(dir, 'b'))).toBe(false);
    // Looking at a session that does not exist opens none.
    const listed = await client.callTool({ name: 'variables', arguments: { session: 'c' } });
    expect(listed.isError).toBeFalsy();
    expect(textOf(await restart(client, { session: 'c' }))).toMatch(/No Python and JavaScript kernel/);

    // Restarting both kernels of "a" ends it: "b" fits now, and "a" is refused in its turn.
    expect(textOf(await restart(client, { session: 'a' }))).toMatch(
      /^Restarted the Python kernel of session "a"/,
    );
    expect((await evalCell(client, marks(dir, 'b'), { session: 'b' })).isError).toBeFalsy();
    expect(existsSync(join(dir, 'b'))).toBe(true);
    expect(textOf(await evalCell(client, '1', { session: 'a' }))).toMatch(/^Cannot open session "a"/);
  });
});

describe('the kernel cap (--max-kernels)', () => {
  it('refuses a call that would start a kernel past the cap, before any cell runs; restart frees one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'omp-caps-'));
    const { client } = await startStdio({ args: ['mcp', '--max-kernels', '2'], cwd: dir });
    await evalCell(client, 'x = 1');
    await evalCell(client, 'var y = 2', {}, 'js');

    const refused = await evalCell(client, marks(dir, 'a'), { session: 'a' });
    expect(refused.isError).toBe(true);
    const text = textOf(refused);
    expect(text).toMatch(
      /^Cannot start a Python kernel for session "a": this server already runs 2 kernels and its cap is 2 \(--max-kernels 2, setting mcp\.maxKernels\)/,
    );
    expect(text).toContain('No cell of this call was run.');
    expect(text).toContain('Your sessions with kernels: "default" (Python, JavaScript)');
    expect(text).toContain('the "restart" tool');
    expect(text).toContain('omp-eval mcp --max-kernels N');
    expect(existsSync(join(dir, 'a'))).toBe(false);
    // A session's own kernels are not new: "default" goes on as before.
    expect(textOf(await evalCell(client, 'x + 1'))).toBe('2');

    await restart(client, { language: 'js' });
    expect((await evalCell(client, marks(dir, 'a'), { session: 'a' })).isError).toBeFalsy();
    expect(existsSync(join(dir, 'a'))).toBe(true);
    expect(textOf(await evalCell(client, 'y', {}, 'js'))).toMatch(/^Cannot start a JavaScript kernel/);
  });
});

describe('the caps from the config file and the flags', () => {
  it('mcp.maxKernels in the config file sets the cap; a bad flag is refused before the server starts', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'omp-caps-'));
    const config = join(dir, 'config.json');
    writeFileSync(config, JSON.stringify({ mcp: { maxKernels: 1 } }));
    const { client } = await startStdio({ env: { OMP_EVAL_CONFIG: config } });
    expect(textOf(await evalCell(client, '1 + 1'))).toBe('2');
    expect(textOf(await evalCell(client, '1 + 1', {}, 'js'))).toMatch(
      /^Cannot start a JavaScript kernel .* its cap is 1 \(--max-kernels 1, setting mcp\.maxKernels\)/,
    );
    const bad = await cli(['mcp', '--max-kernels', '0']);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/--max-kernels <n>.* must be a whole number from 1 to 10000/);
  });
});

describe('HTTP sessions under the session cap', () => {
  it('a new session takes the place of the longest idle one without kernels; with none, it is refused', async () => {
    const server = await startHttp(['--max-sessions', '2']);
    const a = await httpClient(server);
    expect(textOf(await evalCell(a.client, '1 + 1'))).toBe('2'); // holds a kernel
    const idle = await httpClient(server); // holds none
    const b = await httpClient(server); // takes idle's place
    await expect(idle.client.listTools()).rejects.toThrow(/Session not found/);
    expect(textOf(await evalCell(b.client, '2 + 2'))).toBe('4');
    // Both sessions hold kernels: the next client is refused, and told why.
    await expect(httpClient(server)).rejects.toThrow(
      /Error POSTing to endpoint: .*already has 2 sessions, its cap \(--max-sessions 2.*--idle-timeout.*omp-eval mcp --max-sessions N/,
    );
    expect(textOf(await evalCell(a.client, '3 + 3'))).toBe('6'); // nothing else was touched
  });

  it('many clients that never run a cell leave at most the cap of sessions open', async () => {
    const server = await startHttp(['--max-sessions', '3']);
    const init = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    };
    const headers = {
      authorization: `Bearer ${server.token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    };
    const ids: string[] = [];
    for (let i = 0; i < 40; i++) {
      const res = await fetch(server.url, { method: 'POST', headers, body: JSON.stringify(init) });
      expect(res.status).toBe(200);
      await res.text();
      ids.push(res.headers.get('mcp-session-id') as string);
    }
    const alive: string[] = [];
    for (const id of ids) {
      const res = await fetch(server.url, {
        method: 'POST',
        headers: { ...headers, 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }),
      });
      await res.text();
      if (res.status === 200) alive.push(id);
      else expect(res.status).toBe(404);
    }
    expect(alive).toEqual(ids.slice(-3)); // the newest three
  });
});
