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
import { waitFor } from '../helpers/kernel.js';
import { inProcessSettings } from '../helpers/mcpConnection.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

type ClientOptions = ConstructorParameters<typeof Client>[1];

async function connectModern(options: ClientOptions = {}, setUp: (client: Client) => void = () => {}) {
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
    { ...options, versionNegotiation: { mode: { pin: FIRST_MODERN_REVISION } } },
  );
  setUp(client);
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

  it('says why completion() has no answer when the client offers no sampling', async () => {
    const { evalCells } = await connectModern();
    const result = await evalCells([{ language: 'py', code: 'completion("hello")' }]);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('this MCP client does not support sampling (sampling/createMessage)');
  });

  it('asks completion() through the call (input_required), round after round, and the cell goes on', async () => {
    const prompts: string[] = [];
    const { evalCells, connection } = await connectModern({ capabilities: { sampling: {} } }, (client) =>
      client.setRequestHandler('sampling/createMessage', async (request) => {
        const content = request.params.messages[0]?.content as { text: string };
        prompts.push(content.text);
        return { role: 'assistant', model: 'echo', content: { type: 'text', text: `<${content.text}>` } };
      }),
    );
    const result = await evalCells([
      { language: 'py', code: 'before = 1\nfirst = completion("one")' },
      { language: 'py', code: 'second = completion("two")\n(before, first, second)' },
    ]);
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toContain("(1, '<one>', '<two>')");
    expect(prompts).toEqual(['one', 'two']);
    // The kernel kept its state through the rounds, and the next call finds it.
    expect(textOf(await evalCells([{ language: 'py', code: 'second' }]))).toContain("'<two>'");
    expect(connection.busy).toBe(false);
  });

  it('asks input() through the call as an elicitation form; a declined form ends the input', async () => {
    const answers = ['Ada', undefined];
    const { evalCells } = await connectModern({ capabilities: { elicitation: { form: {} } } }, (client) =>
      client.setRequestHandler('elicitation/create', async (request) => {
        expect(request.params.message).toMatch(/^Name\?|^Again\?/);
        const next = answers.shift();
        return next === undefined ? { action: 'decline' } : { action: 'accept', content: { input: next } };
      }),
    );
    const result = await evalCells([
      {
        language: 'py',
        code: 'name = input("Name? ")\ntry:\n    input("Again? ")\nexcept EOFError:\n    print("ended")\nname',
      },
    ]);
    expect(textOf(result)).toContain('ended');
    expect(textOf(result)).toContain("'Ada'");
    expect(textOf(result)).toContain('The user declined the input() of cell 1');
  });

  it('ends a call the client gave up between rounds when its next call of the session comes', async () => {
    let asked = 0;
    const { client, evalCells } = await connectModern({ capabilities: { sampling: {} } }, (c) =>
      c.setRequestHandler('sampling/createMessage', async (_request, ctx) => {
        asked++;
        // (the user never approves; the client's giving up ends the wait)
        return new Promise<never>((_, reject) => ctx.mcpReq.signal.addEventListener('abort', reject));
      }),
    );
    const gaveUp = new AbortController();
    const call = client.callTool(
      { name: 'eval', arguments: { cells: [{ language: 'py', code: 'kept = 5\ncompletion("never")' }] } },
      { signal: gaveUp.signal },
    );
    await waitFor(() => asked === 1, 60_000, 'the sampling question');
    gaveUp.abort();
    await expect(call).rejects.toThrow();
    // The server heard nothing; the session's next call ends the waiting one and runs.
    const next = await evalCells([{ language: 'py', code: 'kept + 1' }]);
    expect(next.isError).toBeFalsy();
    expect(textOf(next)).toContain('6');
  });

  it('lets a variables call made beside a waiting call wait its turn, without ending it', async () => {
    let approve: (() => void) | undefined;
    const { client, connection } = await connectModern({ capabilities: { sampling: {} } }, (c) =>
      c.setRequestHandler(
        'sampling/createMessage',
        () =>
          new Promise((resolve) => {
            approve = () =>
              resolve({ role: 'assistant', model: 'm', content: { type: 'text', text: 'yes' } });
          }),
      ),
    );
    const call = client.callTool({
      name: 'eval',
      arguments: { cells: [{ language: 'py', code: 'seen = 3\ncompletion("ok?")' }] },
    });
    await waitFor(() => approve !== undefined, 60_000, 'the sampling question');
    let listed = false;
    const variables = client.callTool({ name: 'variables', arguments: {} }).then((r) => {
      listed = true;
      return r;
    });
    // (the variables call waits in the session's queue, behind the eval that waits for its answer)
    const session = (connection as unknown as { sessions: Map<string, { alone: boolean }> }).sessions.get(
      'default',
    );
    await waitFor(() => session?.alone === false, 60_000, 'the variables call queued');
    expect(listed).toBe(false);
    approve?.();
    const result = await call;
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toContain("'yes'");
    expect(JSON.stringify((await variables).structuredContent)).toContain('"name":"seen"');
    expect(listed).toBe(true);
  });

  it('refuses a round whose requestState it never gave', async () => {
    const { client } = await connectModern();
    const forged = (await client.request(
      {
        method: 'tools/call',
        params: {
          name: 'eval',
          arguments: { cells: [{ language: 'py', code: '1' }] },
          requestState: 'forged',
        },
      },
      { timeout: 60_000 },
    )) as { isError?: boolean; content?: unknown };
    expect(forged.isError).toBe(true);
    expect(textOf(forged)).toContain(
      'Invalid or expired requestState: no eval call of this server waits for it',
    );
  });
});
