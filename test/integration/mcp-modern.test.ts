/**
 * MCP 2026-07-28 in process: the v2 SDK's client, pinned to that revision, over the SDK's in-memory
 * transport to the v2 server of a real McpConnection (real kernels). The tool handlers are the
 * earlier revisions' (one path): these tests are about what the era changes and what it keeps.
 */
import { mkdtemp, realpath } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { toolInputSchema } from '../../src/eval/index.js';
import { McpConnection } from '../../src/modes/mcp/connection.js';
import { serveModern } from '../../src/modes/mcp/modern.js';
import { toolsFor } from '../../src/modes/mcp/tools.js';
import { FIRST_MODERN_REVISION } from '../../src/modes/mcp/versions.js';
import { inProcessSettings } from '../helpers/mcpConnection.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function connectModern() {
  const cwd = await realpath(await mkdtemp(join(tmpdir(), 'omp-mcp-modern-')));
  const settings = inProcessSettings();
  const connection = new McpConnection({ cwd, settings, revision: FIRST_MODERN_REVISION });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const handle = serveModern(connection, serverSide);
  closers.push(
    () => connection.close(),
    () => handle.close(),
  );
  const client = new Client(
    { name: 'omp-eval-tests', version: '1' },
    { versionNegotiation: { mode: { pin: FIRST_MODERN_REVISION } } },
  );
  await client.connect(clientSide);
  closers.push(() => client.close());
  const evalCells = async (cells: { language: 'py' | 'js'; code: string }[], session?: string) =>
    client.callTool({ name: 'eval', arguments: { cells, ...(session ? { session } : {}) } });
  return { client, connection, evalCells };
}

const textOf = (result: { content?: unknown }) =>
  (result.content as { type: string; text?: string }[]).map((c) => c.text ?? '').join('');

describe('MCP 2026-07-28 through the v2 SDK (in memory)', () => {
  it('is discovered, lists the tools with the one cell schema, and keeps state behind the session handle', async () => {
    const { client, connection, evalCells } = await connectModern();
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    expect(client.getProtocolEra()).toBe('modern');
    expect(client.getServerVersion()?.name).toBe('omp-eval');
    expect(connection.protocolVersion).toBe('2026-07-28');
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['eval', 'restart', 'variables']);
    const evalTool = tools[0] as { inputSchema: { properties: Record<string, unknown> } };
    expect(evalTool.inputSchema.properties.cells).toEqual(toolInputSchema.properties.cells);
    expect(evalTool).toMatchObject({
      title: toolsFor(inProcessSettings())[0]?.title,
      outputSchema: { required: ['session', 'isError', 'cells'] },
    });

    const first = await evalCells([{ language: 'py', code: 'answer = 6 * 7\nanswer' }], 'work');
    expect(first.isError).toBeFalsy();
    expect(textOf(first)).toContain('42');
    expect(first.structuredContent).toMatchObject({ session: 'work', isError: false });
    const second = await evalCells([{ language: 'py', code: 'answer + 1' }], 'work');
    expect(textOf(second)).toContain('43');
    // Another handle is another set of kernels.
    const other = await evalCells([{ language: 'py', code: 'answer' }], 'other');
    expect(other.isError).toBe(true);
    expect(textOf(other)).toContain("NameError: name 'answer' is not defined");
    expect(connection.sessionNames().sort()).toEqual(['other', 'work']);
  });

  it('answers bad arguments with the messages of omp-eval tool, not a schema library', async () => {
    const { evalCells } = await connectModern();
    const result = await evalCells([]);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('"cells" must contain at least one cell');
  });

  it('says why completion() has no answer: the revision has no sampling', async () => {
    const { evalCells } = await connectModern();
    const result = await evalCells([{ language: 'py', code: 'completion("hello")' }]);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain(
      'this connection speaks MCP 2026-07-28, where a server cannot send the client requests, sampling (sampling/createMessage) among them',
    );
  });
});
