/**
 * Invite an agent (issue 41): a notebook in a real pseudo-terminal serves its own kernels over MCP
 * (`--serve-mcp`, `/serve`); the SDK's real client over Streamable HTTP, with the URL and token the
 * notebook printed, works on the person's names, and the person sees the agent's calls.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { evalCell, textOf } from '../helpers/mcp.js';
import { openNotebook, type Screen } from '../helpers/pty.js';

const workspace = mkdtempSync(join(tmpdir(), 'omp-serve-ws-'));

const open: Screen[] = [];
const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close().catch(() => {})));
  for (const s of open.splice(0)) s.kill();
});

function notebook(args: string[]): Screen {
  const screen = openNotebook(['--python', '/usr/bin/python3', '--cwd', workspace, ...args], {
    rows: 40,
    columns: 120,
  });
  open.push(screen);
  return screen;
}

/** The URL and token the notebook printed once it serves. */
async function served(s: Screen): Promise<{ url: string; token: string }> {
  const screen = await s.waitFor((t) => /Bearer token: \S+/.test(t), 'the URL and token');
  const url = /over MCP \(Streamable HTTP\): (http:\/\/\S+)/.exec(screen)?.[1] ?? '';
  const token = /Bearer token: (\S+)/.exec(screen)?.[1] ?? '';
  expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
  return { url, token };
}

async function connect(url: string, token: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: 'omp-eval-tests', version: '1.0.0' }, { capabilities: {} });
  clients.push(client);
  await client.connect(transport);
  return client;
}

describe('omp-eval --serve-mcp: inviting an agent into the notebook', { timeout: 120_000 }, () => {
  it("shares the person's kernels both ways, shows the agent's cells, takes Ctrl-C, refuses a wrong token, and stops with /serve off", async () => {
    const s = notebook(['--serve-mcp']);
    const { url, token } = await served(s);
    expect(s.all()).toMatch(/unsandboxed, with your permissions/);

    // A wrong token is refused before any MCP is spoken.
    const refused = await fetch(url, {
      method: 'POST',
      headers: { Authorization: 'Bearer not-the-token', 'content-type': 'application/json' },
      body: '{}',
    });
    expect(refused.status).toBe(401);

    // The person loads data; the agent reads it.
    await s.run('data = [3, 4, 5]');
    await s.waitFor((t) => /✓ \[1\]/.test(t), "the person's cell");
    const client = await connect(url, token);
    const tools = await client.listTools();
    const evalTool = tools.tools.find((t) => t.name === 'eval');
    expect(evalTool?.description).toContain("these are the live kernels of a person's notebook");
    expect(evalTool?.description).toContain("No sandbox: cells run with the person's own permissions");
    const read = (await client.callTool({
      name: 'eval',
      arguments: {
        cells: [
          {
            language: 'py',
            title: 'sum the data',
            code: 'for i in range(30): print(f"agent line {i}")\nagent_total = sum(data)\nagent_total',
          },
        ],
      },
    })) as CallToolResult;
    expect(textOf(read)).toContain('12');
    // The agent's cell in the notebook: titled, its status and the 10-line preview.
    await s.waitFor((t) => /✓ \[2\] agent #1 sum the data ok/.test(t), "the agent's cell");
    let screen = s.all();
    expect(screen).toContain('agent line 2');
    // (10 rows: 30 lines and the Out line)
    expect(screen).toContain('… 21 more lines (ctrl+o shows them)');
    expect(screen).not.toContain('agent line 23\n');
    expect(screen).toContain('agent line 24');
    expect(screen).toContain('Out[2]: 12');

    // The person reads the agent's name; the agent's next result says so first.
    await s.run('seen = agent_total * 2; seen');
    await s.waitFor((t) => t.includes('Out[3]: 24'), 'the person reading the agent’s name');
    const next = textOf(await evalCell(client, 'seen + 1'));
    expect(next).toMatch(
      /^\[The person whose notebook this is \(omp-eval --serve-mcp\) ran a Python cell in it before this call: `seen = agent_total \* 2; seen`; it ran ok\. It defined or changed seen\./,
    );
    expect(next).toContain('25');

    // Ctrl-C in the notebook interrupts the agent's long cell; its result says so.
    const long = evalCell(client, 'import time\nwhile True: time.sleep(0.05)');
    await s.waitFor((t) => /\[\*\] agent #3 running/.test(t), "the agent's long cell");
    s.write('\x03');
    const interrupted = textOf(await long);
    expect(interrupted).toMatch(/KeyboardInterrupt/);
    expect(interrupted).toContain(
      'The person whose notebook this is (omp-eval --serve-mcp) interrupted this cell with Ctrl-C.',
    );
    await s.waitFor((t) => /⊘ \[\d+\] agent #3 cancelled/.test(t), 'the cancelled cell');

    // /serve off: a call in flight fails with a clear error, and later calls cannot connect.
    const inFlight = evalCell(client, 'import time\nwhile True: time.sleep(0.05)');
    await s.waitFor((t) => /\[\*\] agent #4 running/.test(t), "the agent's cell in flight");
    await s.run('/serve off');
    await expect(inFlight).rejects.toThrow(/The person stopped sharing this notebook \(\/serve off\)/);
    screen = await s.waitFor((t) => t.includes('Stopped serving'), 'serving stopped');
    await expect(evalCell(client, '1 + 1')).rejects.toThrow();
    // The notebook keeps its kernel and the names both parties made.
    await s.run('data, agent_total, seen');
    await s.waitFor((t) => t.includes('([3, 4, 5], 12, 24)'), 'the names kept');
  });

  it('/serve starts serving in a running notebook', async () => {
    const s = notebook([]);
    await s.run('mine = 7');
    await s.waitFor((t) => /✓ \[1\]/.test(t), "the person's cell");
    await s.run('/serve');
    const { url, token } = await served(s);
    const client = await connect(url, token);
    expect(textOf(await evalCell(client, 'mine * 6'))).toContain('42');
    await s.waitFor((t) => /✓ \[2\] agent #1 ok/.test(t) && t.includes('Out[2]: 42'), "the agent's cell");
  });
});
