/**
 * `omp-eval mcp --http`: Streamable HTTP on loopback behind a bearer token, driven by the SDK's
 * StreamableHTTPClientTransport; kernels per MCP session, shut down when it ends.
 */
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import { CreateMessageRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.js';
import { waitFor } from '../helpers/kernel.js';
import {
  evalCell,
  type HttpServer,
  hostGuards,
  httpClient,
  isHostGuard,
  kernelPid,
  pidAlive,
  startHttp,
  stopHttpServers,
  textOf,
} from '../helpers/mcp.js';

/** One server for the tests that need nothing of their own: each client is an MCP session of its own. */
let shared: HttpServer;
beforeAll(async () => {
  shared = await startHttp();
});
afterAll(stopHttpServers);

const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

function post(url: string, headers: Record<string, string>, body: unknown = INIT) {
  return fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: JSON.stringify(body),
  });
}

/** The status of an initialize request sent with this Host header (fetch cannot set Host). */
function statusWithHost(url: string, token: string, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const { hostname, port, pathname } = new URL(url);
    const req = request(
      {
        hostname,
        port,
        path: pathname,
        method: 'POST',
        headers: {
          host,
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
      },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(INIT));
  });
}

/** Local addresses of the listening TCP sockets on `port` (from /proc/net/tcp and tcp6). */
function listeningAddresses(port: number): string[] {
  const found: string[] = [];
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(file, 'utf8').split('\n').slice(1)) {
      const [, local, , state] = line.trim().split(/\s+/);
      if (!local || state !== '0A') continue; // 0A: LISTEN
      const [address, hexPort] = local.split(':') as [string, string];
      if (Number.parseInt(hexPort, 16) === port) found.push(address);
    }
  }
  return found;
}

function tryConnect(host: string, port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
  });
}

describe('omp-eval mcp --http', { timeout: 60_000 }, () => {
  it('refuses requests without the bearer token, or with a wrong one', async () => {
    const server = shared;
    expect(server.token.length).toBeGreaterThanOrEqual(32);
    const none = await post(server.url, {});
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect((await none.json()).error.message).toMatch(/Authorization: Bearer <token>/);
    expect((await post(server.url, { authorization: `Bearer ${server.token}x` })).status).toBe(401);
    expect((await post(server.url, { authorization: server.token })).status).toBe(401);
    await expect(httpClient(server, { token: 'wrong-token-of-some-length' })).rejects.toThrow(/Unauthorized/);
    // A page in a browser that reaches the port under another name is refused too.
    expect(await statusWithHost(server.url, server.token, 'evil.example')).toBe(403);
    expect(await statusWithHost(server.url, server.token, new URL(server.url).host)).toBe(200);
    expect(
      (await post(server.url.replace('/mcp', '/other'), { authorization: `Bearer ${server.token}` })).status,
    ).toBe(404);
    const ok = await post(server.url, { authorization: `Bearer ${server.token}` });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('mcp-session-id')).toMatch(/^[\w-]{36}$/);
  });

  it('listens on loopback only and refuses other addresses', async () => {
    const server = shared;
    const port = Number(new URL(server.url).port);
    expect(new URL(server.url).hostname).toBe('127.0.0.1');
    expect(listeningAddresses(port)).toEqual(['0100007F']); // 127.0.0.1, nothing else
    const external = Object.values(networkInterfaces())
      .flat()
      .filter((a) => a && !a.internal && a.family === 'IPv4')
      .map((a) => a?.address as string);
    for (const address of external) expect(await tryConnect(address, port)).toBe('ECONNREFUSED');
    for (const address of ['0.0.0.0:0', '[::]:0']) {
      const refused = await cli(['mcp', '--http', address]);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(
        /is not a loopback address.*only listens on 127\.0\.0\.1, ::1 or localhost/,
      );
    }
    expect((await cli(['mcp', '--http', 'nonsense'])).stderr).toMatch(/--http takes HOST:PORT/);
  });

  it('takes the token from OMP_EVAL_MCP_TOKEN without printing it, and refuses a short one', async () => {
    const token = 'a-token-chosen-by-the-user-0123456789';
    const server = await startHttp([], { OMP_EVAL_MCP_TOKEN: token });
    expect(server.stdout()).toMatch(/bearer token from OMP_EVAL_MCP_TOKEN/);
    expect(server.stdout()).not.toContain(token);
    const { client } = await httpClient(server, { token });
    expect(textOf(await evalCell(client, '1 + 1'))).toBe('2');
    await client.close();
    const short = await cli(['mcp', '--http', '127.0.0.1:0'], { env: { OMP_EVAL_MCP_TOKEN: 'short' } });
    expect(short.code).toBe(2);
    expect(short.stderr).toMatch(/OMP_EVAL_MCP_TOKEN must be at least 16 characters/);
  });

  it('gives each MCP session its own kernels, retained across calls', async () => {
    const server = shared;
    const a = await httpClient(server);
    const b = await httpClient(server);
    const sessionA = a.transport.sessionId;
    expect(sessionA).not.toBe(b.transport.sessionId);
    await evalCell(a.client, 'who = "a"');
    await evalCell(b.client, 'who = "b"');
    expect(textOf(await evalCell(a.client, 'who'))).toBe("'a'");
    expect(textOf(await evalCell(b.client, 'who'))).toBe("'b'");
    const pa = await kernelPid(a.client);
    const pb = await kernelPid(b.client);
    expect(pa).not.toBe(pb);
    // Deleting a session shuts its kernels down; the other session goes on.
    await a.transport.terminateSession();
    await waitFor(() => !pidAlive(pa), 60_000, 'the deleted session’s kernel to end');
    expect(pidAlive(pb)).toBe(true);
    expect(textOf(await evalCell(b.client, 'who'))).toBe("'b'");
    const stale = await post(
      server.url,
      {
        authorization: `Bearer ${server.token}`,
        'mcp-session-id': sessionA as string,
        'mcp-protocol-version': '2025-06-18',
      },
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
    );
    expect(stale.status).toBe(404);
  });

  it('sends progress, honours cancellation and answers completion() by sampling over HTTP', async () => {
    const server = shared;
    const { client } = await httpClient(server, { capabilities: { sampling: {} } });
    client.setRequestHandler(CreateMessageRequestSchema, async () => ({
      role: 'assistant',
      model: 'm',
      content: { type: 'text', text: 'sampled over http' },
    }));
    expect(textOf(await evalCell(client, 'completion("q")'))).toBe(
      "[completion finished]\n'sampled over http'",
    );
    await evalCell(client, 'x = 41');
    const controller = new AbortController();
    const messages: string[] = [];
    const cancelled = client.callTool(
      { name: 'eval', arguments: { cells: [{ language: 'py', code: 'log("spinning")\nwhile True: pass' }] } },
      undefined,
      {
        signal: controller.signal,
        onprogress: (p) => {
          messages.push(p.message ?? '');
          if (p.message?.includes('log: spinning')) controller.abort();
        },
      },
    );
    await expect(cancelled).rejects.toThrow(/abort/i);
    expect(messages.join('\n')).toMatch(/cell started/);
    const next = await evalCell(client, 'x + 1');
    expect(textOf(next)).toMatch(/cell 1 was interrupted, and the Python kernel kept its state\.\]\n\n42$/);
  });

  it('shuts an idle session down after --idle-timeout', async () => {
    const server = await startHttp(['--idle-timeout', '1']);
    const { client } = await httpClient(server);
    const pid = await kernelPid(client);
    await waitFor(() => !pidAlive(pid), 60_000, 'the idle session’s kernel to end');
    await expect(evalCell(client, '1')).rejects.toThrow(/Session not found/);
    // A running cell is not idle: a cell longer than the timeout still ends normally.
    const again = await httpClient(server);
    expect(textOf(await evalCell(again.client, 'import time\ntime.sleep(1.5)\n"still here"'))).toBe(
      "'still here'",
    );
  });

  it('shuts every kernel down on SIGTERM', async () => {
    const server = await startHttp();
    const { client } = await httpClient(server);
    const py = await kernelPid(client);
    const js = await kernelPid(client, {}, 'js');
    const guards = hostGuards(server.child.pid as number);
    expect(guards).toHaveLength(1); // the check finds the live guard
    server.child.kill('SIGTERM');
    expect(await server.exited).toEqual({ code: 143, signal: null });
    expect(pidAlive(py)).toBe(false);
    expect(pidAlive(js)).toBe(false);
    await waitFor(() => !guards.some(isHostGuard), 60_000, 'the guard to end');
  });
});
