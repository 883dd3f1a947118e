/**
 * A silent cell keeps its call alive (issue 42, defect 4): while a call with a progress token
 * runs, progress goes out at least every keepalive interval (15 s; 200 ms here), output or not.
 * In process: the SDK's client over its in-memory transport, real kernels.
 */
import { mkdtemp, realpath, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS } from '../../src/eval/settings.js';
import { McpConnection } from '../../src/modes/mcp/connection.js';
import { waitFor } from '../helpers/kernel.js';

const open: { client: Client; connection: McpConnection }[] = [];
afterEach(async () => {
  for (const { client, connection } of open.splice(0)) {
    await client.close();
    await connection.close();
  }
});

async function connect(keepaliveMs?: number) {
  const cwd = await realpath(await mkdtemp(join(tmpdir(), 'omp-mcp-progress-')));
  const connection = new McpConnection({
    settings: { ...DEFAULT_SETTINGS, 'sandbox.mode': 'off', 'python.interpreter': '/usr/bin/python3' },
    cwd,
    ...(keepaliveMs ? { keepaliveMs } : {}),
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await connection.server.connect(serverSide);
  const client = new Client({ name: 'mcp-progress-test', version: '1' });
  await client.connect(clientSide);
  open.push({ client, connection });
  return { client, cwd };
}

/** A cell that prints nothing and waits until the test creates `flag`. */
const silentUntil = (flag: string) =>
  `import os, time\nwhile not os.path.exists(${JSON.stringify(flag)}): time.sleep(0.02)\n1 + 1`;

describe('progress while a silent cell runs', { timeout: 120_000 }, () => {
  it('goes out every keepalive interval, saying what still runs', async () => {
    const { client, cwd } = await connect(200);
    const flag = join(cwd, 'go');
    const progress: Progress[] = [];
    const call = client.callTool(
      { name: 'eval', arguments: { cells: [{ language: 'py', code: silentUntil(flag) }] } },
      undefined,
      { onprogress: (p) => progress.push(p) },
    );
    const keepalives = () => progress.filter((p) => /still running/.test(p.message ?? ''));
    // (the first may come while the kernel starts: three once the cell runs)
    const ofCell = () => keepalives().filter((p) => /^cell /.test(p.message ?? ''));
    await waitFor(() => ofCell().length >= 3, 60_000, 'three keepalive notifications of the cell');
    await writeFile(flag, '');
    const result = (await call) as CallToolResult;
    expect(result.isError).toBe(false);
    expect((result.content[0] as { text: string }).text).toBe('2');
    expect(keepalives().at(-1)?.message).toMatch(/^cell still running \(\d+ s\)$/);
    // Progress only grows, as the specification requires.
    const values = progress.map((p) => p.progress);
    expect(values).toEqual([...values].sort((a, b) => a - b));
    expect(new Set(values).size).toBe(values.length);
  });
});
