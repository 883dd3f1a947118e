/** One version (issue 44): package.json's, which `--version` prints and the MCP server gives as its own. */
import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS } from '../../src/eval/settings.js';
import { McpConnection } from '../../src/modes/mcp/connection.js';
import { VERSION } from '../../src/version.js';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  version: string;
};

describe('the version', () => {
  it("is package.json's", () => {
    expect(VERSION).toBe(pkg.version);
  });

  it("is the MCP server's own in its answer to initialize", async () => {
    const connection = new McpConnection({ settings: DEFAULT_SETTINGS, cwd: process.cwd() });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await connection.server.connect(serverSide);
    const client = new Client({ name: 'version-test', version: '1' });
    await client.connect(clientSide);
    expect(client.getServerVersion()?.version).toBe(pkg.version);
    await client.close();
    await connection.close();
  });
});
