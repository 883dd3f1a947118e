/**
 * The MCP server's eval calls in process (the SDK's client over its in-memory transport, real
 * kernels): every call of a session takes the same path, with the same output budget; a client
 * gets only what the revision it negotiated has.
 */
import { mkdtemp, realpath } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult, JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS, type Settings } from '../../src/eval/settings.js';
import { McpConnection } from '../../src/modes/mcp/connection.js';
import { waitFor } from '../helpers/kernel.js';

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
