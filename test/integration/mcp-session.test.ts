/**
 * The MCP server's eval calls in process (the SDK's client over its in-memory transport, real
 * kernels): every call of a session takes the same path, with the same output budget.
 */
import { mkdtemp, realpath } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS, type Settings } from '../../src/eval/settings.js';
import { McpConnection } from '../../src/modes/mcp/connection.js';

const open: { client: Client; connection: McpConnection }[] = [];

afterEach(async () => {
  for (const { client, connection } of open.splice(0)) {
    await client.close();
    await connection.close();
  }
});

/** A connection with its client, over the in-memory transport. */
async function connect(settings: Partial<Settings> = {}) {
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
