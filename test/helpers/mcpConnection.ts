/**
 * The MCP server in process: an McpConnection (real kernels) and the SDK's client over its
 * in-memory transport, closed after the test.
 */
import { mkdtemp, realpath } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterEach } from 'vitest';
import { DEFAULT_SETTINGS, type Settings } from '../../src/eval/settings.js';
import { type ConnectionOptions, McpConnection } from '../../src/modes/mcp/connection.js';

const open: { client: Client; connection: McpConnection }[] = [];
afterEach(async () => {
  for (const { client, connection } of open.splice(0)) {
    await client.close();
    await connection.close();
  }
});

/** Unsandboxed settings with the system's python3, and `settings` over them. */
export const inProcessSettings = (settings: Partial<Settings> = {}): Settings => ({
  ...DEFAULT_SETTINGS,
  'sandbox.mode': 'off',
  'python.interpreter': '/usr/bin/python3',
  ...settings,
});

/** A connection in a new temp folder (unless `cwd` is given), with a client connected to it. */
export async function connectInProcess(
  opts: Partial<ConnectionOptions> & { settings?: Partial<Settings>; name?: string } = {},
) {
  const cwd = opts.cwd ?? (await realpath(await mkdtemp(join(tmpdir(), 'omp-mcp-'))));
  const connection = new McpConnection({ ...opts, cwd, settings: inProcessSettings(opts.settings) });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await connection.server.connect(serverSide);
  const client = new Client({ name: opts.name ?? 'omp-eval-tests', version: '1' });
  await client.connect(clientSide);
  open.push({ client, connection });
  return { client, connection, cwd };
}
