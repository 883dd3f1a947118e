/**
 * The real `omp-eval mcp` speaks the MCP revision each client negotiated: raw JSON-RPC over stdio
 * and Streamable HTTP on 2025-03-26 (batches, no resource_link or structured part) and on
 * 2025-06-18 (no batches), and the official SDK's client 1.12, which negotiates 2025-03-26 and
 * rejects a whole result with a content type it does not know. That client is installed from npm
 * into a temp folder by this file (about 10 s; the npm registry must be reachable), unless
 * OMP_EVAL_TEST_MCP_SDK_1_12 names a folder where it is installed already.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BIN } from '../helpers/cli.js';
import { waitFor } from '../helpers/kernel.js';
import { startHttp, stopHttpServers } from '../helpers/mcp.js';

const run = promisify(execFile);
/** A cell whose output is cut: its full output becomes an artifact. */
const CUT = 'for i in range(3000): print("line", i, "x" * 40)';

type Message = {
  id?: number | string | null;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
};

/** `omp-eval mcp` over stdio, spoken to line by line. */
class RawStdio {
  readonly lines: unknown[] = [];
  private readonly child: ChildProcess;
  private buffered = '';

  constructor() {
    this.child = spawn(process.execPath, [BIN, '--python', '/usr/bin/python3', 'mcp'], {
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    this.child.stdout?.setEncoding('utf8').on('data', (d: string) => {
      this.buffered += d;
      const parts = this.buffered.split('\n');
      this.buffered = parts.pop() as string;
      for (const part of parts) this.lines.push(JSON.parse(part));
    });
  }

  send(message: unknown) {
    this.child.stdin?.write(`${JSON.stringify(message)}\n`);
  }

  /** The answer to request `id` (a line of its own). */
  async answer(id: number): Promise<Message> {
    const find = () => this.lines.find((l) => (l as Message).id === id) as Message | undefined;
    await waitFor(() => find() !== undefined, 60_000, `the answer to ${id}`);
    return find() as Message;
  }

  async initialize(protocolVersion: string): Promise<Message> {
    this.send({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    const answer = await this.answer(0);
    this.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    return answer;
  }

  close() {
    this.child.stdin?.end();
    return new Promise((resolve) => this.child.once('exit', resolve));
  }
}

const servers: RawStdio[] = [];
function stdio() {
  const server = new RawStdio();
  servers.push(server);
  return server;
}
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
  await stopHttpServers();
});

const evalRequest = (id: number, code: string) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'eval', arguments: { cells: [{ language: 'py', code }] } },
});

describe('a client on 2025-03-26 over stdio', { timeout: 120_000 }, () => {
  it('gets what that revision has: no titles, output schemas, resource links or structured parts', async () => {
    const server = stdio();
    const init = await server.initialize('2025-03-26');
    expect(init.result).toMatchObject({ protocolVersion: '2025-03-26', serverInfo: { name: 'omp-eval' } });
    expect(init.result?.serverInfo).not.toHaveProperty('title');
    server.send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const tools = (await server.answer(1)).result?.tools as Record<string, unknown>[];
    expect(tools.map((t) => t.name)).toEqual(['eval', 'restart', 'variables']);
    for (const tool of tools) {
      expect(tool.title).toBeUndefined();
      expect(tool.outputSchema).toBeUndefined();
      expect(tool.annotations).toBeDefined();
    }
    server.send(evalRequest(2, CUT));
    const result = (await server.answer(2)).result as { content: { type: string; text?: string }[] };
    expect(result.content.map((c) => c.type)).toEqual(['text']);
    expect(result.content[0]?.text).toMatch(/chars omitted; full output: artifact:\/\/[\w-]+ \(/);
    expect(result).not.toHaveProperty('structuredContent');
  });

  it('may send a JSON-RPC batch, answered as one array', async () => {
    const server = stdio();
    await server.initialize('2025-03-26');
    server.send([
      { jsonrpc: '2.0', id: 10, method: 'tools/list' },
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 99 } },
      { jsonrpc: '2.0', id: 11, method: 'ping' },
    ]);
    await waitFor(() => server.lines.some(Array.isArray), 60_000, 'the answer to the batch');
    const answer = server.lines.find(Array.isArray) as Message[];
    expect(answer.map((m) => m.id).sort()).toEqual([10, 11]);
    expect(answer.find((m) => m.id === 11)?.result).toEqual({});
  });
});

describe('a client on 2025-06-18 over stdio', { timeout: 120_000 }, () => {
  it('has its batch refused (the revision has none), and gets resource links and structured parts', async () => {
    const server = stdio();
    await server.initialize('2025-06-18');
    server.send([{ jsonrpc: '2.0', id: 10, method: 'ping' }]);
    await waitFor(() => server.lines.length >= 2, 60_000, 'the answer to the batch');
    expect(server.lines[1]).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: expect.stringMatching(/batches are not part of MCP 2025-06-18/) },
    });
    server.send(evalRequest(2, CUT));
    const result = (await server.answer(2)).result as {
      content: { type: string }[];
      structuredContent?: unknown;
    };
    expect(result.content.map((c) => c.type)).toEqual(['text', 'resource_link']);
    expect(result.structuredContent).toBeDefined();
  });
});

describe('batches over Streamable HTTP', { timeout: 120_000 }, () => {
  it('are taken on 2025-03-26 and refused on 2025-06-18, as over stdio', async () => {
    const server = await startHttp();
    const post = async (body: unknown, version: string, session?: string) => {
      const res = await fetch(server.url, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${server.token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': version,
          ...(session ? { 'mcp-session-id': session } : {}),
        },
        body: JSON.stringify(body),
      });
      return {
        status: res.status,
        session: res.headers.get('mcp-session-id') ?? undefined,
        text: await res.text(),
      };
    };
    for (const version of ['2025-03-26', '2025-06-18']) {
      const init = await post(
        {
          jsonrpc: '2.0',
          id: 0,
          method: 'initialize',
          params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
        },
        version,
      );
      expect(init.status).toBe(200);
      await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, version, init.session);
      const batch = await post(
        [
          { jsonrpc: '2.0', id: 1, method: 'ping' },
          { jsonrpc: '2.0', id: 2, method: 'tools/list' },
        ],
        version,
        init.session,
      );
      if (version === '2025-03-26') {
        expect(batch.status).toBe(200);
        expect(batch.text).toMatch(/"id":1/);
        expect(batch.text).toMatch(/"id":2/);
      } else {
        expect(batch.status).toBe(400);
        expect(JSON.parse(batch.text)).toMatchObject({
          error: { code: -32600, message: expect.stringMatching(/batches are not part of MCP 2025-06-18/) },
        });
      }
    }
  });
});

describe("the official SDK's client 1.12 (2025-03-26)", { timeout: 180_000 }, () => {
  let prefix: string;
  beforeAll(async () => {
    // (CI may install it beforehand: `npm install --prefix DIR @modelcontextprotocol/sdk@1.12.0`)
    const installed = process.env.OMP_EVAL_TEST_MCP_SDK_1_12;
    prefix = installed ?? (await mkdtemp(join(tmpdir(), 'omp-mcp-sdk112-')));
    if (installed) return;
    await run(
      'npm',
      [
        'install',
        '--prefix',
        prefix,
        '--no-audit',
        '--no-fund',
        '--ignore-scripts',
        '@modelcontextprotocol/sdk@1.12.0',
      ],
      { timeout: 150_000 },
    );
  }, 180_000);

  it('takes a result with a cut output, and reads the artifact', async () => {
    const script = join(await mkdtemp(join(tmpdir(), 'omp-mcp-old-client-')), 'client.mjs');
    const sdk = join(prefix, 'node_modules/@modelcontextprotocol/sdk/dist/esm');
    await writeFile(
      script,
      `import { Client } from ${JSON.stringify(join(sdk, 'client/index.js'))};
import { StdioClientTransport } from ${JSON.stringify(join(sdk, 'client/stdio.js'))};
const client = new Client({ name: 'old', version: '1' });
await client.connect(new StdioClientTransport({ command: process.execPath, args: [${JSON.stringify(BIN)}, '--python', '/usr/bin/python3', 'mcp'] }));
const tools = await client.listTools();
const result = await client.callTool({ name: 'eval', arguments: { cells: [{ language: 'py', code: ${JSON.stringify(CUT)} }] } });
const uri = /artifact:\\/\\/[\\w-]+/.exec(result.content[0].text)[0];
const read = await client.readResource({ uri });
console.log(JSON.stringify({ tools: tools.tools.map((t) => t.name), types: result.content.map((c) => c.type), lines: read.contents[0].text.split('\\n').length }));
// (exits without waiting for the server: ending stdin ends it)
process.exit(0);
`,
    );
    const { stdout } = await run(process.execPath, [script], { timeout: 120_000 });
    expect(JSON.parse(stdout)).toEqual({
      tools: ['eval', 'restart', 'variables'],
      types: ['text'],
      lines: 3001,
    });
  });
});
