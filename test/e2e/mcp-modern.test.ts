/**
 * The real `omp-eval mcp` and MCP 2026-07-28: the v2 SDK's own client (2.4.0), pinned to that
 * revision, over stdio and over Streamable HTTP (server/discover, no initialize, no
 * Mcp-Session-Id: the kernels are behind the `session` handle), and the v1 client (1.32) still
 * negotiating 2025-11-25 against the same build, on both transports.
 */
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernHttp,
} from '@modelcontextprotocol/client';
import { StdioClientTransport as ModernStdio } from '@modelcontextprotocol/client/stdio';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN } from '../helpers/cli.js';
import { pidAlive, waitFor } from '../helpers/kernel.js';
import { httpClient, startHttp, stopHttpServers, textOf } from '../helpers/mcp.js';

const REVISION = '2026-07-28';
const ARGS = [BIN, '--python', '/usr/bin/python3', 'mcp'];

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close().catch(() => {});
  await stopHttpServers();
});

/** A client of the revision that answers sampling requests with the prompt in brackets. */
function modernClient(): ModernClient {
  const client = new ModernClient(
    { name: 'omp-eval-tests', version: '2' },
    { capabilities: { sampling: {} }, versionNegotiation: { mode: { pin: REVISION } } },
  );
  client.setRequestHandler('sampling/createMessage', async (request) => {
    const content = request.params.messages[0]?.content as { text: string };
    return { role: 'assistant', model: 'echo', content: { type: 'text', text: `<${content.text}>` } };
  });
  closers.push(() => client.close());
  return client;
}

type Call = (args: Record<string, unknown>) => Promise<unknown>;

/** What a 2026-07-28 client sees, the same on both transports. */
async function speaksModern(client: ModernClient) {
  expect(client.getNegotiatedProtocolVersion()).toBe(REVISION);
  expect(client.getProtocolEra()).toBe('modern');
  const discovered = await client.discover();
  expect(discovered.supportedVersions).toContain(REVISION);
  expect(discovered.capabilities.tools).toBeDefined();
  const call: Call = (args) => client.callTool({ name: 'eval', arguments: args });
  const cell = (code: string) => ({ cells: [{ language: 'py', code }], session: 'notes' });
  const defined = await call(cell('total = sum(range(10))\ntotal'));
  expect(textOf(defined)).toContain('45');
  // A second call reads the name through the same handle: the session, not a transport session.
  const read = await call(cell('total * 2'));
  expect(textOf(read)).toContain('90');
  // completion() asks the client through the call's rounds (input_required), the cell waiting.
  const sampling = await call(cell('reply = completion("say hi")\nreply, total'));
  expect((sampling as { isError?: boolean }).isError).toBeFalsy();
  expect(textOf(sampling)).toContain("('<say hi>', 45)");
}

describe('MCP 2026-07-28 with the v2 SDK client', { timeout: 120_000 }, () => {
  it('over stdio: discover, state behind the session handle, sampling through the call', async () => {
    const client = modernClient();
    await client.connect(new ModernStdio({ command: process.execPath, args: ARGS, stderr: 'ignore' }));
    await speaksModern(client);
  });

  it('over stdio: SIGTERM answers the call in flight with an error and the server exits', async () => {
    const client = modernClient();
    const transport = new ModernStdio({ command: process.execPath, args: ARGS, stderr: 'ignore' });
    await client.connect(transport);
    const pid = transport.pid as number;
    let started = false;
    const call = client
      .callTool(
        {
          name: 'eval',
          arguments: { cells: [{ language: 'py', code: 'log("sleeping")\nimport time\ntime.sleep(600)' }] },
        },
        {
          timeout: 600_000,
          onprogress: () => {
            started = true;
          },
        },
      )
      .then(
        (answer) => ({ answer, failure: undefined }),
        (failure: Error) => ({ answer: undefined, failure }),
      );
    await waitFor(() => started, 30_000, 'the cell to start');
    process.kill(pid, 'SIGTERM');
    const { answer, failure } = await call;
    const said = failure?.message ?? textOf(answer);
    expect(said).toMatch(/shutting down \(SIGTERM\)/);
    await waitFor(() => !pidAlive(pid), 10_000, 'the server to exit');
  });

  it('over HTTP: the same, and no Mcp-Session-Id on any answer', async () => {
    const server = await startHttp(['--python', '/usr/bin/python3']);
    const sessionIds: (string | null)[] = [];
    const statuses: number[] = [];
    const fetchSeen: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      sessionIds.push(response.headers.get('mcp-session-id'));
      statuses.push(response.status);
      return response;
    };
    const client = modernClient();
    await client.connect(
      new ModernHttp(new URL(server.url), {
        requestInit: { headers: { Authorization: `Bearer ${server.token}` } },
        fetch: fetchSeen,
      }),
    );
    await speaksModern(client);
    expect(statuses.length).toBeGreaterThanOrEqual(4);
    expect(statuses.every((s) => s === 200)).toBe(true);
    expect(sessionIds.every((id) => id === null)).toBe(true);
  });
});

describe('the v1 client beside it (the same build)', { timeout: 120_000 }, () => {
  const check = async (client: Client) => {
    expect(client.getServerVersion()?.name).toBe('omp-eval');
    const result = await client.callTool({
      name: 'eval',
      arguments: { cells: [{ language: 'py', code: 'x = 5\nx * 3' }] },
    });
    expect(textOf(result)).toContain('15');
  };

  it('over stdio negotiates 2025-11-25', async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: ARGS, stderr: 'ignore' });
    let negotiated: string | undefined;
    // (the client tells a transport the revision agreed in initialize, where the transport listens)
    Object.assign(transport, { setProtocolVersion: (version: string) => (negotiated = version) });
    const client = new Client({ name: 'omp-eval-tests', version: '1' });
    closers.push(() => client.close());
    await client.connect(transport);
    expect(negotiated).toBe('2025-11-25');
    await check(client);
  });

  it('over HTTP negotiates 2025-11-25, with its Mcp-Session-Id', async () => {
    const server = await startHttp(['--python', '/usr/bin/python3']);
    const { client, transport } = await httpClient(server);
    closers.push(() => client.close());
    expect(transport.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(transport.protocolVersion).toBe('2025-11-25');
    await check(client);
  });
});
