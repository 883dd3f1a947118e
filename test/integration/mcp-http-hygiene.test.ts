/**
 * The HTTP front door of `omp-eval mcp --http` (issue 42, defect 7), in process: Origin checked as
 * the MCP specification requires (a foreign one 403, none or a loopback one fine), Host compared
 * without case, and a body over the limit answered 413 with a JSON-RPC error, not a reset.
 */

import { mkdtemp, realpath } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS } from '../../src/eval/settings.js';
import { loopbackOrigin, McpHttpServer } from '../../src/modes/mcp/http.js';

const TOKEN = 'a-token-of-at-least-16-chars';
const LIMIT = 4096;
let server: McpHttpServer;
let url: URL;

beforeAll(async () => {
  const cwd = await realpath(await mkdtemp(join(tmpdir(), 'omp-mcp-http-')));
  server = new McpHttpServer({
    settings: { ...DEFAULT_SETTINGS, 'sandbox.mode': 'off', 'python.interpreter': '/usr/bin/python3' },
    cwd,
    host: '127.0.0.1',
    port: 0,
    token: TOKEN,
    idleTimeoutMs: 60_000,
    maxBodyBytes: LIMIT,
  });
  url = new URL(await server.listen());
});
afterAll(() => server.close());

const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

/** A POST with these headers (node:http: fetch cannot set Host); the status and the body read. */
function post(
  headers: Record<string, string>,
  body = JSON.stringify(INIT),
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        hostname: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        headers: {
          host: url.host,
          authorization: `Bearer ${TOKEN}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (d: string) => {
          text += d;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('omp-eval mcp over HTTP: the front door', { timeout: 60_000 }, () => {
  it('refuses a foreign Origin with 403 and takes none or a loopback one', async () => {
    for (const origin of ['https://evil.example', 'http://localhost.evil.example:8080', 'null', 'file://']) {
      const answer = await post({ origin });
      expect(answer.status, origin).toBe(403);
      expect(JSON.parse(answer.body)).toMatchObject({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32000, message: expect.stringMatching(/origin/i) },
      });
    }
    expect((await post({})).status).toBe(200);
    for (const origin of [`http://localhost:${url.port}`, 'http://127.0.0.1:3000', 'http://[::1]:9']) {
      expect((await post({ origin })).status, origin).toBe(200);
    }
  });

  it('compares Host without case', async () => {
    expect((await post({ host: url.host.replace('127.0.0.1', 'LOCALHOST') })).status).toBe(200);
    expect((await post({ host: `LocalHost:${url.port}` })).status).toBe(200);
    expect((await post({ host: `evil.example:${url.port}` })).status).toBe(403);
  });

  it('answers a body over the limit with 413 and a JSON-RPC error', async () => {
    const big = JSON.stringify({ ...INIT, padding: 'x'.repeat(LIMIT * 64) });
    const answer = await post({}, big);
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body)).toMatchObject({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: expect.stringMatching(/too large.*over 4096 bytes/) },
    });
    // The server still answers.
    expect((await post({})).status).toBe(200);
  });

  it('knows loopback origins', () => {
    expect(loopbackOrigin('http://localhost')).toBe(true);
    expect(loopbackOrigin('https://127.1.2.3:443')).toBe(true);
    expect(loopbackOrigin('http://[::1]:80')).toBe(true);
    expect(loopbackOrigin('http://127.0.0.1.nip.io')).toBe(false);
    expect(loopbackOrigin('chrome-extension://abc')).toBe(false);
  });
});
