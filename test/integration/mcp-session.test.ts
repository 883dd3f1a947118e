/**
 * The MCP server's eval calls in process (the SDK's client over its in-memory transport, real
 * kernels): every call of a session takes the same path, with the same output budget, and the
 * model hears of each event once.
 */
import { mkdtemp, realpath } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult, JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS, type Settings } from '../../src/eval/settings.js';
import { McpConnection } from '../../src/modes/mcp/connection.js';
import { waitFor } from '../helpers/kernel.js';

const FAKE_AGENT = fileURLToPath(new URL('../fixtures/fake-agent.py', import.meta.url));
const open: { client: Client; connection: McpConnection }[] = [];

afterEach(async () => {
  for (const { client, connection } of open.splice(0)) {
    await client.close();
    await connection.close();
  }
});

/** A connection, and the client's end of an in-memory transport to it. */
async function serve(settings: Partial<Settings> = {}) {
  const cwd = await realpath(await mkdtemp(join(tmpdir(), 'omp-mcp-session-')));
  const connection = new McpConnection({
    settings: {
      ...DEFAULT_SETTINGS,
      'sandbox.mode': 'off',
      'python.interpreter': '/usr/bin/python3',
      ...settings,
    },
    cwd,
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await connection.server.connect(serverSide);
  return { connection, clientSide };
}

/** A connection with the SDK's client, over the in-memory transport. */
async function connect(settings: Partial<Settings> = {}) {
  const { connection, clientSide } = await serve(settings);
  const client = new Client({ name: 'mcp-session-test', version: '1' });
  await client.connect(clientSide);
  open.push({ client, connection });
  const evalCells = async (cells: Record<string, unknown>[]) =>
    (await client.callTool({ name: 'eval', arguments: { cells } })) as CallToolResult;
  return { client, connection, evalCells };
}

const textOf = (r: CallToolResult) => (r.content[0] as { text: string }).text;
const py = (code: string, extra: Record<string, unknown> = {}) => ({ language: 'py', code, ...extra });
const count = (text: string, part: string) => text.split(part).length - 1;

describe('every eval call of a session, the first and the later ones', { timeout: 120_000 }, () => {
  it('shows each of five cells of 100,000 characters in the second call as in the first', async () => {
    const { evalCells } = await connect();
    const cells = [1, 2, 3, 4, 5].map((n) => py(`print("${n}" * 100_000)`));
    for (const call of [1, 2]) {
      const text = textOf(await evalCells(cells));
      for (const n of [1, 2, 3, 4, 5]) {
        // Each cell: its header, the head and tail of its output, the marker naming its artifact.
        expect(text, `call ${call}, cell ${n}`).toMatch(
          new RegExp(
            `\\[${n}/5\\]\\n${n}{100,}\\n… \\[\\d+ chars omitted; full output: artifact://[\\w-]+ \\([^)]+\\)\\]\\n${n}{100,}`,
          ),
        );
      }
      expect(text.length).toBeLessThanOrEqual(60_000);
    }
  });

  it('says a kernel that was killed once: in the result of the call that killed it, not again in the next', async () => {
    const { connection, evalCells } = await connect();
    await evalCells([py('x = 1')]);
    const killed = await evalCells([
      py('import signal, time\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nwhile True: time.sleep(0.05)', {
        timeout: 1,
      }),
    ]);
    expect(textOf(killed)).toMatch(/the kernel has been killed and will be recreated/);
    const next = await evalCells([py('"x" in globals()')]);
    expect(textOf(next)).toBe('False');
    // A death between calls, that no result told of, is still said.
    await evalCells([py('import os, threading\nthreading.Timer(0.1, lambda: os._exit(3)).start()')]);
    await waitFor(() => connection.kernelCount() === 0, 60_000, 'the kernel to exit');
    expect(textOf(await evalCells([py('2')]))).toMatch(/^2\n\[The previous Python kernel had exited/);
  });

  it('says a completion() call finished once per call, and sends no colour', async () => {
    const { evalCells } = await connect({ 'bridge.completionCommand': `python3 ${FAKE_AGENT}` });
    const r = await evalCells([
      py('a = [completion("ab") for _ in range(3)]\nprint("\\x1b[31mred\\x1b[0m")'),
      py('b = completion("cd")\nb'),
    ]);
    expect(count(textOf(r), '[completion finished]')).toBe(1);
    expect(textOf(r)).toContain('red');
    expect(textOf(r)).not.toContain('\x1b');
    expect(JSON.stringify(r.structuredContent)).not.toMatch(/\\u001b/);
  });
});

describe('a client on an earlier revision (2024-11-05)', { timeout: 120_000 }, () => {
  it('gets no field that revision lacks: annotations, titles, output schemas, a progress message, a structured part', async () => {
    const { connection, clientSide } = await serve();
    const received: JSONRPCMessage[] = [];
    clientSide.onmessage = (message) => received.push(message);
    await clientSide.start();
    const answer = async (id: number) => {
      await waitFor(() => received.some((m) => 'id' in m && m.id === id), 60_000, `the answer to ${id}`);
      return (received.find((m) => 'id' in m && m.id === id) as { result: Record<string, unknown> }).result;
    };
    try {
      await clientSide.send({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: {
          protocolVersion: '2024-11-05',
          capabilities: {},
          clientInfo: { name: 'old', version: '1' },
        },
      });
      expect(await answer(0)).toMatchObject({ protocolVersion: '2024-11-05' });
      await clientSide.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      await clientSide.send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
      for (const tool of (await answer(1)).tools as Record<string, unknown>[])
        expect(Object.keys(tool).sort()).toEqual(['description', 'inputSchema', 'name']);
      await clientSide.send({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: {
          name: 'eval',
          arguments: { cells: [py('log("step")\n6 * 7')] },
          _meta: { progressToken: 'p' },
        },
      });
      const result = await answer(2);
      expect(result).toEqual({ content: [{ type: 'text', text: '[log] step\n42' }], isError: false });
      const progress = received.filter((m) => 'method' in m && m.method === 'notifications/progress');
      expect(progress.length).toBeGreaterThan(0);
      for (const p of progress) expect(p).not.toHaveProperty('params.message');
      expect(connection.protocolVersion).toBe('2024-11-05');
    } finally {
      await clientSide.close();
      await connection.close();
    }
  });
});

describe('a cell timeout below 1 s (issue 42, defect 9)', { timeout: 120_000 }, () => {
  it('is clamped to 1 s as the schema says, with a note, not refused', async () => {
    const { client, evalCells } = await connect();
    const { tools } = await client.listTools();
    const { AjvJsonSchemaValidator } = await import('@modelcontextprotocol/sdk/validation/ajv');
    const input = new AjvJsonSchemaValidator().getValidator(tools[0]?.inputSchema as object);
    expect(input({ cells: [py('1', { timeout: 0 })] }).valid).toBe(true);
    const result = await evalCells([
      py('1 + 1', { timeout: 0 }),
      py('import time; time.sleep(3)', { timeout: 0.2 }),
    ]);
    const text = textOf(result);
    expect(text).toMatch(/\[1\/2\]\n2\n/);
    expect(text).toContain('cell 1: "timeout": 0 is below the shortest timeout, so the cell ran with 1 s.');
    expect(text).toContain('cell 2: "timeout": 0.2 is below the shortest timeout, so the cell ran with 1 s.');
    const cells = (result.structuredContent as { cells: { timedOut?: boolean }[] }).cells;
    expect(cells[1]?.timedOut).toBe(true);
    expect(result.isError).toBe(true);
  });
});
