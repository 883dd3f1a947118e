/**
 * `omp-eval mcp` (src/modes/mcp/command.ts, stdio.ts) in process: the function the CLI calls,
 * serving the SDK's client over streams the test holds (stdio) and over Streamable HTTP, with real
 * kernels; what it prints for --print-config; the exit codes of what it refuses.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { SettingsError } from '../../src/eval/settings.js';
import { type McpCommandOptions, runMcpCommand } from '../../src/modes/mcp/command.js';
import { discover } from '../../src/modes/share/client.js';
import { deadlineIn, waitFor } from '../helpers/kernel.js';
import { evalCell, StreamTransport, textOf } from '../helpers/mcp.js';
import { inProcessSettings } from '../helpers/mcpConnection.js';
import { outputStreams } from '../helpers/streams.js';

const cwd = mkdtempSync(join(tmpdir(), 'omp-mcp-command-'));

/** Runs the command with `opts`; its exit code and what it printed. */
async function command(opts: Partial<McpCommandOptions>) {
  const { streams, out, err } = outputStreams();
  const code = await runMcpCommand({
    settings: async () => inProcessSettings(),
    cwd,
    ...opts,
    out: streams.out,
    err: streams.err,
  });
  return { code, out: out(), err: err() };
}

/** The handler the command added for `signal` since `before` (the one it would run on that signal). */
function addedHandler(signal: NodeJS.Signals, before: Set<unknown>): () => void {
  const added = process.listeners(signal).filter((l) => !before.has(l));
  expect(added).toHaveLength(1);
  return added[0] as () => void;
}

describe('omp-eval mcp over stdio, in process', { timeout: 120_000 }, () => {
  it('serves eval calls, publishes its session for attach, and ends with 0 when stdin ends', async () => {
    const runtime = mkdtempSync(join(tmpdir(), 'omp-mcp-command-rt-'));
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const { streams, err } = outputStreams();
    const served = runMcpCommand({
      settings: async () => inProcessSettings(),
      cwd,
      env: { ...process.env, XDG_RUNTIME_DIR: runtime },
      stdin,
      out: stdout,
      err: streams.err,
    });
    const client = new Client({ name: 'stdio-in-process', version: '1' });
    await client.connect(new StreamTransport(stdin, stdout));
    expect(textOf(await evalCell(client, 'import os\nprint(os.getcwd())\n6 * 7'))).toBe(`${cwd}\n42`);
    // (its sessions are published for `omp-eval attach`)
    let found: Awaited<ReturnType<typeof discover>> | undefined;
    const probe = async () => {
      found = await discover({ XDG_RUNTIME_DIR: runtime });
      return found.servers.some((s) => s.sessions.some((x) => x.client === 'stdio-in-process'));
    };
    const until = deadlineIn(30_000);
    while (!(await probe())) {
      if (Date.now() > until) throw new Error('the session was never published');
      await new Promise((resolve) => setImmediate(resolve));
    }
    // (this server's session: the worker's other tests may have feeds of their own in this process)
    const own = found?.servers.flatMap((s) => s.sessions).find((x) => x.client === 'stdio-in-process');
    expect(own).toMatchObject({
      name: 'default',
      cellsRun: 1,
      transport: 'stdio',
    });
    expect(textOf(await evalCell(client, '1 + 1'))).toBe('2');
    stdin.end();
    expect(await served).toBe(0);
    expect(err()).toBe('');
    // The server's end unpublished it.
    expect((await discover({ XDG_RUNTIME_DIR: runtime })).servers).toEqual([]);
  });
});

describe('omp-eval mcp --http, in process', { timeout: 120_000 }, () => {
  it('prints its URL, serves a client with the token, and ends with 143 on SIGTERM', async () => {
    const before = new Set(process.listeners('SIGTERM'));
    const { streams, out } = outputStreams();
    const token = 'a-test-token-of-more-than-16-characters';
    const runtime = mkdtempSync(join(tmpdir(), 'omp-mcp-command-rt-'));
    const served = runMcpCommand({
      settings: async () => inProcessSettings(),
      cwd,
      http: '127.0.0.1:0',
      env: { ...process.env, OMP_EVAL_MCP_TOKEN: token, XDG_RUNTIME_DIR: runtime },
      ...streams,
    });
    await waitFor(() => out().includes('bearer token'), 30_000, 'the server to listen');
    expect(out()).toMatch(
      /^omp-eval mcp: serving MCP \(Streamable HTTP\) at http:\/\/127\.0\.0\.1:\d+\/mcp\nomp-eval mcp: bearer token from OMP_EVAL_MCP_TOKEN\n$/,
    );
    const url = /(http:\/\/\S+)/.exec(out())?.[1] as string;
    const client = new Client({ name: 'http-in-process', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(url), {
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
      }),
    );
    expect(textOf(await evalCell(client, '2 ** 10'))).toBe('1024');
    addedHandler('SIGTERM', before)();
    expect(await served).toBe(143);
    // (its handlers are gone with it)
    expect(process.listeners('SIGTERM').filter((l) => !before.has(l))).toEqual([]);
    await client.close().catch(() => {});
  });
});

describe('omp-eval mcp: what it prints and refuses, in process', () => {
  it("prints a client's configuration on stdout and where it goes on stderr", async () => {
    const argv = [
      process.execPath,
      '/opt/omp/bin/omp-eval.js',
      '--python',
      'py3',
      'mcp',
      '--print-config',
      'claude',
    ];
    const stdio = await command({ printConfig: 'claude', argv, env: {} });
    expect(stdio.code).toBe(0);
    expect(stdio.out).toContain('/opt/omp/bin/omp-eval.js');
    expect(stdio.out).not.toContain('--print-config');
    expect(stdio.err.length).toBeGreaterThan(0);
    const http = await command({ printConfig: 'claude', argv, env: {}, http: '127.0.0.1:8765' });
    expect(http.code).toBe(0);
    expect(http.out).toContain('http://127.0.0.1:8765/mcp');
    expect(http.err).toContain(
      'Start the server yourself with OMP_EVAL_MCP_TOKEN set (at least 16 characters) in both environments: omp-eval mcp --http 127.0.0.1:8765\n',
    );
    const v6 = await command({ printConfig: 'claude', argv, env: {}, http: '[::1]:8765' });
    expect(v6.out).toContain('http://[::1]:8765/mcp');
  });

  it('exits 2 on a bad --http address or bad settings, 1 on a folder that is none', async () => {
    expect(await command({ printConfig: 'claude', http: '127.0.0.1:0', env: {} })).toEqual({
      code: 2,
      out: '',
      err: 'omp-eval mcp: --print-config with --http needs a fixed port, not 0\n',
    });
    const open = await command({ http: '0.0.0.0:8765' });
    expect(open.code).toBe(2);
    expect(open.err).toMatch(/^omp-eval mcp: --http: 0\.0\.0\.0 is not a loopback address/);
    const settings = await command({
      settings: async () => {
        throw new SettingsError('mcp.maxKernels: must be a whole number');
      },
    });
    expect(settings).toEqual({
      code: 2,
      out: '',
      err: 'omp-eval mcp: mcp.maxKernels: must be a whole number\n',
    });
    const nowhere = await command({ cwd: join(cwd, 'none') });
    expect(nowhere.code).toBe(1);
    expect(nowhere.err).toBe(`omp-eval mcp: Working directory does not exist: ${join(cwd, 'none')}\n`);
  });
});
