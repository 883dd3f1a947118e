/**
 * A served notebook in process (src/modes/serve): the notebook's real backend over real kernels,
 * served over Streamable HTTP to the SDK's real client, with a stand-in for the notebook's cell
 * runner that replays the agents' cells one at a time, as the notebook does.
 */
import { mkdtemp, realpath } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernHttpTransport,
} from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { CellResult, OutputEvent } from '../../src/eval/index.js';
import { DEFAULT_SETTINGS } from '../../src/eval/settings.js';
import { FIRST_MODERN_REVISION } from '../../src/modes/mcp/versions.js';
import { aboutKernels } from '../../src/modes/serve/notebookServer.js';
import { SERVING_STOPPED, ServedNotebook } from '../../src/modes/serve/servedBackend.js';
import type { AgentCell } from '../../src/tui/backend.js';
import { executorBackend } from '../../src/tui/backend.js';
import { makeExecutor } from '../helpers/executor.js';
import { waitFor } from '../helpers/kernel.js';
import { evalCell, textOf } from '../helpers/mcp.js';

const served: ServedNotebook[] = [];
const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close().catch(() => {})));
  await Promise.all(served.splice(0).map((s) => s.dispose()));
});

const settings = {
  ...DEFAULT_SETTINGS,
  'sandbox.mode': 'off' as const,
  'python.interpreter': '/usr/bin/python3',
};

interface Shown {
  cell: AgentCell;
  events: OutputEvent[];
  result?: CellResult;
}

/** A notebook's backend with /serve, and what its runner showed of the agents' cells. */
async function notebook(env: NodeJS.ProcessEnv = {}) {
  const cwd = await realpath(await mkdtemp(join(tmpdir(), 'omp-serve-')));
  const executor = makeExecutor({ settings });
  const inner = await executorBackend(executor, { cwd });
  const backend = new ServedNotebook(inner, { executor, cwd, language: 'py', env });
  served.push(backend);
  const shown: Shown[] = [];
  let runner = Promise.resolve();
  backend.onAgentCells((cells) => {
    for (const cell of cells) {
      const entry: Shown = { cell, events: [] };
      shown.push(entry);
      runner = runner.then(async () => {
        entry.result = await backend.runCell({
          code: cell.code,
          party: cell.party,
          onEvent: (e) => entry.events.push(e),
        });
      });
    }
  });
  const person = async (code: string) => {
    const events: OutputEvent[] = [];
    const result = await backend.runCell({ code, onEvent: (e) => events.push(e) });
    return { result, events };
  };
  return { backend, executor, shown, person };
}

async function connect(describe: string, token?: string): Promise<Client> {
  const url = /over MCP \(Streamable HTTP\): (\S+)/.exec(describe)?.[1] as string;
  const bearer = token ?? (/Bearer token: (\S+)/.exec(describe)?.[1] as string);
  const client = new Client({ name: 'serve-tests', version: '1' });
  clients.push(client);
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { Authorization: `Bearer ${bearer}` } },
    }),
  );
  return client;
}

const resultText = (events: OutputEvent[]) =>
  events.flatMap((e) => (e.kind === 'result' ? [e.text ?? ''] : [])).join('');

describe('a served notebook', () => {
  it("shares the person's kernel with its agents both ways, and tells them what the person ran", async () => {
    const { backend, shown, person } = await notebook();
    await person('data = 5');
    const text = await backend.serve('');
    expect(text).toMatch(
      /^Serving this notebook's kernels over MCP \(Streamable HTTP\): http:\/\/127\.0\.0\.1:\d+\/mcp$/m,
    );
    expect(text).toContain('unsandboxed, with your permissions');
    expect(await backend.serve('')).toMatch(/^Already serving \(\/serve off stops\)\.\nServing/);
    const token = /Bearer token: (\S+)/.exec(text)?.[1] as string;
    expect(await backend.serve('config codex')).toContain(
      `Set OMP_EVAL_MCP_TOKEN=${token} in the environment`,
    );
    expect(await backend.serve('config nope')).toMatch(/^usage: \/serve config claude\|/);

    const client = await connect(text);
    // The person's names, before any call of the agent's.
    const listed = (await client.callTool({ name: 'variables', arguments: {} })) as CallToolResult;
    expect(JSON.stringify(listed.structuredContent)).toContain('"name":"data"');
    const read = textOf(
      await client.callTool({
        name: 'eval',
        arguments: { cells: [{ language: 'py', code: 'twice = data * 2\ntwice', title: 'double' }] },
      }),
    );
    expect(read).toContain('10');
    await waitFor(() => shown[0]?.result !== undefined, 30_000, "the agent's cell shown");
    expect(shown[0]?.cell).toMatchObject({ code: 'twice = data * 2\ntwice', title: 'double' });
    expect(shown[0]?.cell.party).toMatchObject({ by: 'agent', call: 1, client: 'serve-tests' });
    expect(shown[0]?.result?.status).toBe('ok');
    expect(resultText(shown[0]?.events ?? [])).toBe('10');

    // The person reads the agent's name; the agent's next result starts with the note.
    const { events } = await person('mine = twice + 1; mine');
    expect(resultText(events)).toBe('11');
    const next = textOf(await evalCell(client, 'mine'));
    expect(next).toMatch(
      /^\[The person whose notebook this is \(omp-eval --serve-mcp\) ran a Python cell in it before this call: `mine = twice \+ 1; mine`; it ran ok\. It defined or changed mine\.\]/,
    );
    // Notes are bounded: ten cells, then one line for the rest.
    for (let i = 0; i < 12; i++) await person(`n${i} = ${i}`);
    const after = textOf(await evalCell(client, '1'));
    expect(after.match(/ran a Python cell in it before this call/g)).toHaveLength(10);
    expect(after).toContain('ran more cells after these; call "variables" to see the names defined now.');
    expect(textOf(await evalCell(client, '2'))).not.toContain('The person whose notebook');
  });

  it('stops with /serve off: calls in flight fail saying so, their cell is interrupted, the kernel keeps its state', async () => {
    const { backend, shown, person } = await notebook();
    await person('kept = 1');
    const client = await connect(await backend.serve('127.0.0.1:0'));
    const inFlight = evalCell(client, 'import time\nwhile True: time.sleep(0.05)').then(
      () => undefined,
      (err: Error) => err,
    );
    await waitFor(
      () => shown[0]?.events.some((e) => e.kind === 'started') === true,
      30_000,
      'the cell running',
    );
    expect(await backend.serve('off')).toMatch(/^Stopped serving/);
    expect((await inFlight)?.message).toContain(SERVING_STOPPED);
    await waitFor(() => shown[0]?.result !== undefined, 30_000, 'the cell ended in the notebook');
    expect(shown[0]?.result?.status).toBe('cancelled');
    // (its real end, once interrupted: the notebook shows what the kernel said)
    expect(shown[0]?.events.some((e) => e.kind === 'error' && e.ename === 'KeyboardInterrupt')).toBe(true);
    expect(await backend.serve('off')).toBe('Not serving: nothing to stop.');
    expect(await backend.serve('config claude')).toMatch(/^Not serving/);
    const { result, events } = await person('kept + 1');
    expect(result.status).toBe('ok');
    expect(resultText(events)).toBe('2');
  });

  it("lets an agent go (it ends its MCP session) without touching the notebook's kernel; its cell in the notebook ends", async () => {
    const { backend, shown, person } = await notebook();
    const text = await backend.serve('');
    const url = /over MCP \(Streamable HTTP\): (\S+)/.exec(text)?.[1] as string;
    const transport = new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { Authorization: `Bearer ${/Bearer token: (\S+)/.exec(text)?.[1]}` } },
    });
    const client = new Client({ name: 'serve-tests', version: '1' });
    await client.connect(transport);
    void evalCell(client, 'import time\nwhile True: time.sleep(0.05)').catch(() => {});
    await waitFor(
      () => shown[0]?.events.some((e) => e.kind === 'started') === true,
      30_000,
      'the cell running',
    );
    // (an agent that leaves ends its MCP session: its call in flight is aborted)
    await transport.terminateSession();
    await client.close();
    await waitFor(() => shown[0]?.result !== undefined, 30_000, 'the cell ended in the notebook');
    expect(shown[0]?.result?.status).toBe('cancelled');
    const { events } = await person('"still here"');
    expect(resultText(events)).toBe("'still here'");
  });

  it("tells the person when an agent restarts the notebook's kernel (its restart tool)", async () => {
    const { backend, person } = await notebook();
    const notices: string[] = [];
    backend.onNotice((text) => notices.push(text));
    await person('loaded = 7');
    const client = await connect(await backend.serve(''));
    const restarted = (await client.callTool({
      name: 'restart',
      arguments: { language: 'py' },
    })) as CallToolResult;
    expect(restarted.isError, textOf(restarted)).toBeFalsy();
    await waitFor(() => notices.some((n) => n.includes('An agent restarted')), 30_000, 'the notice');
    expect(notices).toContain(
      "An agent restarted the notebook's Python kernel (its restart tool): the state that was in it is gone.",
    );
    const { result } = await person('loaded');
    expect(result.status).toBe('error');
  });

  it('reads the token from OMP_EVAL_MCP_TOKEN, and refuses another', async () => {
    const token = 'a-token-of-the-users-own';
    const { backend } = await notebook({ OMP_EVAL_MCP_TOKEN: token });
    const text = await backend.serve('');
    expect(text).toContain('Bearer token: (from OMP_EVAL_MCP_TOKEN)');
    expect(text).toContain('--header "Authorization: Bearer $OMP_EVAL_MCP_TOKEN"');
    await expect(connect(text, 'another-token-altogether')).rejects.toThrow(/Unauthorized/);
    const client = await connect(text, token);
    expect(textOf(await evalCell(client, '6 * 7'))).toContain('42');
  });

  it("serves a 2026-07-28 client (the v2 SDK's) the notebook's own kernel, with whose kernels its tool says", async () => {
    const { backend, shown, person } = await notebook();
    await person('data = 7');
    const text = await backend.serve('');
    const url = /over MCP \(Streamable HTTP\): (\S+)/.exec(text)?.[1] as string;
    const bearer = /Bearer token: (\S+)/.exec(text)?.[1] as string;
    const client = new ModernClient(
      { name: 'serve-tests-modern', version: '1' },
      { versionNegotiation: { mode: { pin: FIRST_MODERN_REVISION } } },
    );
    clients.push(client as unknown as Client);
    await client.connect(
      new ModernHttpTransport(new URL(url), {
        requestInit: { headers: { Authorization: `Bearer ${bearer}` } },
      }),
    );
    expect(client.getNegotiatedProtocolVersion()).toBe(FIRST_MODERN_REVISION);
    const { tools } = await client.listTools();
    expect(tools.find((t) => t.name === 'eval')?.description).toContain("a person's notebook");
    const read = await client.callTool({
      name: 'eval',
      arguments: { cells: [{ language: 'py', code: 'data * 6', title: 'from 2026' }] },
    });
    expect(textOf(read as CallToolResult)).toContain('42');
    await waitFor(() => shown[0]?.result !== undefined, 30_000, "the agent's cell shown");
    expect(shown[0]?.cell).toMatchObject({ code: 'data * 6', title: 'from 2026' });
  });

  it('tells the agents whose kernels they are and which sandbox applies', () => {
    const executor = makeExecutor({ settings });
    expect(aboutKernels(executor)).toMatch(
      /^Whose kernels: these are the live kernels of a person's notebook/,
    );
    expect(aboutKernels(executor)).toContain("No sandbox: cells run with the person's own permissions");
    const sandboxed = makeExecutor({ settings: { ...settings, 'sandbox.mode': 'workspace-write' } });
    expect(aboutKernels(sandboxed)).toContain("The sandbox described above applies (the person's choice).");
  });
});
