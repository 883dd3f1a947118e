/**
 * The MCP server's restart and variables tools, its caps on sessions and kernels
 * (src/modes/mcp/limits.ts) and its answers to calls it cannot serve, in process: McpConnections
 * with the SDK's client over the in-memory transport, real kernels.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { ServerCaps } from '../../src/modes/mcp/limits.js';
import { evalCell, textOf } from '../helpers/mcp.js';
import { connectInProcess } from '../helpers/mcpConnection.js';

const tool = (client: Client, name: string, args: Record<string, unknown> = {}) =>
  client.callTool({ name, arguments: args }) as Promise<CallToolResult>;

/** A cell that leaves a file named `mark` in the session's folder: proof that it ran. */
const marks = (dir: string, mark: string) => `open(${JSON.stringify(join(dir, mark))}, "w").close()`;

describe('the restart and variables tools', { timeout: 120_000 }, () => {
  it('lists the names of both kernels, then none once restart ended them', async () => {
    const { client } = await connectInProcess();
    expect(textOf(await tool(client, 'variables'))).toBe(
      'Python: no kernel is running (it starts at the first py cell).\n\nJavaScript: no kernel is running (it starts at the first js cell).',
    );
    expect((await evalCell(client, 'answer = 42\nwords = ["a", "b"]')).isError).toBe(false);
    expect((await evalCell(client, 'const greeting = "hi"', {}, 'js')).isError).toBe(false);
    const listed = await tool(client, 'variables');
    expect(listed.isError).toBeFalsy();
    const names = (
      listed.structuredContent as { variables: { name: string; language: string; type: string }[] }
    ).variables;
    expect(names).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'answer', language: 'py', type: 'int' }),
        expect.objectContaining({ name: 'words', language: 'py', type: 'list' }),
        expect.objectContaining({ name: 'greeting', language: 'js' }),
      ]),
    );
    expect(textOf(listed)).toMatch(/^Python:\nVariable +Type +Data\/Info\n-+\n/);
    expect(textOf(listed)).toMatch(/answer +int +42/);

    const restarted = await tool(client, 'restart', { language: 'py' });
    expect(restarted.structuredContent).toMatchObject({
      session: 'default',
      restarted: ['py'],
      stateLost: true,
    });
    expect(textOf(restarted)).toMatch(/^Restarted the Python kernel of session "default": all state/);
    expect(textOf(await evalCell(client, 'print("answer" in globals())'))).toBe('False');
    // (the JavaScript kernel kept its state)
    expect(textOf(await evalCell(client, 'greeting', {}, 'js'))).toBe("'hi'");
    const again = await tool(client, 'variables', { language: 'py' });
    expect(textOf(again)).toBe('Python: no names defined.');
  });

  it('says there was nothing to restart in a session that does not exist, and does not open it', async () => {
    const { client, connection } = await connectInProcess();
    const result = await tool(client, 'restart', { session: 'ghost' });
    expect(textOf(result)).toBe(
      'No Python and JavaScript kernel of session "ghost" was running; the next eval starts a fresh one.',
    );
    expect(result.structuredContent).toMatchObject({ restarted: [], stateLost: false });
    expect(connection.sessionNames()).toEqual([]);
  });

  it('refuses bad arguments and unknown tools with what is wrong', async () => {
    const { client } = await connectInProcess();
    const bad = await tool(client, 'restart', { language: 'cobol' });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toMatch(/language/);
    await expect(tool(client, 'format_disk')).rejects.toThrow(
      /Unknown tool "format_disk"; the tools are eval, restart and variables/,
    );
  });
});

describe("the server's caps, every client's sessions and kernels together", { timeout: 120_000 }, () => {
  it('refuses a new session past --max-sessions, naming the sessions held; restart frees a place', async () => {
    const caps = new ServerCaps(2, 10);
    const { client, cwd } = await connectInProcess({ caps });
    expect((await evalCell(client, marks(cwd, 'default'))).isError).toBe(false);
    expect((await evalCell(client, marks(cwd, 'a'), { session: 'a' })).isError).toBe(false);
    expect(caps.sessionsInUse()).toBe(2);
    const refused = await evalCell(client, marks(cwd, 'b'), { session: 'b' });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(
      /^Cannot open session "b": this server already has 2 sessions, its cap \(--max-sessions 2/,
    );
    expect(textOf(refused)).toContain('Use a session you have ("default", "a")');
    expect(existsSync(join(cwd, 'b'))).toBe(false);
    // restart of every language ends the session and frees its place
    expect(textOf(await tool(client, 'restart', { session: 'a' }))).toMatch(
      /^Restarted the Python kernel of session "a"/,
    );
    expect(caps.sessionsInUse()).toBe(1);
    expect((await evalCell(client, marks(cwd, 'b'), { session: 'b' })).isError).toBe(false);
    expect(existsSync(join(cwd, 'b'))).toBe(true);
  });

  it('refuses a call that would pass --max-kernels before any cell runs, naming the kernels of each client', async () => {
    const caps = new ServerCaps(10, 2);
    const one = await connectInProcess({ caps });
    const other = await connectInProcess({ caps });
    expect(textOf(await evalCell(one.client, '1 + 1'))).toBe('2');
    expect(textOf(await evalCell(other.client, '2 + 2'))).toBe('4');
    expect(caps.kernelsInUse()).toBe(2);
    const refused = await one.client.callTool({
      name: 'eval',
      arguments: {
        cells: [
          { language: 'py', code: marks(one.cwd, 'py-ran') },
          { language: 'js', code: '1' },
        ],
      },
    });
    expect(refused.isError).toBe(true);
    const text = textOf(refused);
    expect(text).toMatch(
      /^Cannot start a JavaScript kernel for session "default": this server already runs 2 kernels and its cap is 2 \(--max-kernels 2/,
    );
    expect(text).toContain('No cell of this call was run.');
    expect(text).toContain('Your sessions with kernels: "default" (Python)');
    expect(existsSync(join(one.cwd, 'py-ran'))).toBe(false);
    // A client whose sessions hold no kernel is told the others are other clients'.
    const third = await connectInProcess({ caps });
    expect(textOf(await evalCell(third.client, '3'))).toContain('Your sessions hold no kernels');
    // The other client's restart frees a kernel for this one.
    await tool(other.client, 'restart');
    expect(caps.kernelsInUse()).toBe(1);
    expect(textOf(await evalCell(one.client, '"js ok"', {}, 'js'))).toBe("'js ok'");
    expect(caps.kernelsInUse()).toBe(2);
  });

  it('refuses a new HTTP client only when the sessions are all taken', () => {
    const caps = new ServerCaps(1, 4);
    expect(caps.newClientRefusal(60)).toBeUndefined();
    const holder = { sessionNames: () => [], kernelCount: () => 0, kernelHolders: () => [] };
    caps.join(holder);
    expect(caps.newClientRefusal(60)).toMatch(
      /^This server already has 1 sessions, .* idle for 60 s \(--idle-timeout\)/,
    );
    caps.leave(holder);
    expect(caps.newClientRefusal(60)).toBeUndefined();
  });
});
