/**
 * A served notebook whose Python kernel is on a real Jupyter server (`--jupyter`): the agent works
 * in that remote kernel, the person's names included, and the eval tool says where its cells run.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OutputEvent } from '../../src/eval/index.js';
import { ServedNotebook } from '../../src/modes/serve/servedBackend.js';
import type { AgentCell } from '../../src/tui/backend.js';
import { executorBackend } from '../../src/tui/backend.js';
import { makeExecutor } from '../helpers/executor.js';
import { type JupyterServer, startJupyterServer } from '../helpers/jupyter.js';
import { waitFor } from '../helpers/kernel.js';
import { evalCell, textOf } from '../helpers/mcp.js';

let server: JupyterServer;
beforeAll(async () => {
  server = await startJupyterServer();
});
afterAll(async () => {
  await server?.stop();
});

describe('a served notebook on a remote kernel', () => {
  it("lets the agent work in the notebook's remote Python kernel", async () => {
    const executor = makeExecutor({
      settings: { 'jupyter.url': server.url, 'jupyter.token': server.token },
    });
    const inner = await executorBackend(executor, { cwd: server.root });
    const backend = new ServedNotebook(inner, { executor, cwd: server.root, language: 'py', env: {} });
    const shown: { cell: AgentCell; events: OutputEvent[]; done?: boolean }[] = [];
    backend.onAgentCells((cells) => {
      for (const cell of cells) {
        const entry: (typeof shown)[number] = { cell, events: [] };
        shown.push(entry);
        void backend
          .runCell({ code: cell.code, party: cell.party, onEvent: (e) => entry.events.push(e) })
          .then(() => {
            entry.done = true;
          });
      }
    });
    const client = new Client({ name: 'serve-remote-tests', version: '1' });
    try {
      const mine = await backend.runCell({ code: 'remote_data = 21', onEvent: () => {} });
      expect(mine.status).toBe('ok');
      const text = await backend.serve('');
      const url = /over MCP \(Streamable HTTP\): (\S+)/.exec(text)?.[1] as string;
      const token = /Bearer token: (\S+)/.exec(text)?.[1] as string;
      await client.connect(
        new StreamableHTTPClientTransport(new URL(url), {
          requestInit: { headers: { Authorization: `Bearer ${token}` } },
        }),
      );
      const tools = await client.listTools();
      const description = tools.tools.find((t) => t.name === 'eval')?.description ?? '';
      expect(description).toContain('run in a kernel on the Jupyter server');
      expect(description).toContain("The local sandbox is off (the person's choice).");
      expect(textOf(await evalCell(client, 'remote_data * 2'))).toContain('42');
      await waitFor(() => shown[0]?.done === true, 30_000, "the agent's cell shown");
      expect(shown[0]?.cell.party.by).toBe('agent');
      expect(shown[0]?.events.some((e) => e.kind === 'result' && e.text === '42')).toBe(true);
    } finally {
      await client.close();
      await backend.dispose();
    }
  });
});
