/**
 * input() through MCP elicitation (issue 42): with a client that offers elicitation, a cell's
 * input() asks the user (the prompt as the message, one string field) and goes on with the answer;
 * a declined form ends the cell's input; getpass() is not asked (the specification forbids secrets
 * in forms) and the result says what to do instead; without the capability input() raises
 * StdinNotImplementedError as before. The SDK's client against the built server.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  type ElicitRequest,
  ElicitRequestSchema,
  type ElicitResult,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/kernel.js';
import {
  evalCell,
  httpClient,
  startHttp,
  startStdio,
  stopAll,
  stopHttpServers,
  textOf,
} from '../helpers/mcp.js';

afterAll(async () => {
  await stopAll();
  await stopHttpServers();
});

/** A client offering elicitation whose user answers with `answer`; the forms it was shown. */
async function clientAnswering(answer: (params: ElicitRequest['params']) => ElicitResult) {
  const asked: ElicitRequest['params'][] = [];
  const { client } = await startStdio({ capabilities: { elicitation: {} } });
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    asked.push(request.params);
    return answer(request.params);
  });
  return { client, asked };
}

const run = (client: Client, code: string, language = 'py') => evalCell(client, code, {}, language);

describe('input() through elicitation', () => {
  it('asks the user with the prompt as the message and one string field, in both languages', async () => {
    let n = 0;
    const { client, asked } = await clientAnswering(() => ({
      action: 'accept',
      content: { input: `Ada ${++n}` },
    }));
    const py = await run(client, 'name = input("Your name? ")\nprint("hello", name)\nname');
    expect(py.isError).toBeFalsy();
    expect(textOf(py)).toContain('hello Ada 1');
    expect(asked[0]?.message).toBe('Your name?');
    const schema = (asked[0] as { requestedSchema?: unknown } | undefined)?.requestedSchema as {
      properties: Record<string, { type: string }>;
      required: string[];
    };
    expect(Object.values(schema.properties).map((p) => p.type)).toEqual(['string']);
    expect(schema.required).toEqual(Object.keys(schema.properties));

    const js = await run(client, 'const answer = input("Colour? "); console.log("got", answer)', 'js');
    expect(js.isError).toBeFalsy();
    expect(textOf(js)).toContain('got Ada 2');
    expect(asked[1]?.message).toBe('Colour?');
    // state kept: the answer is a name of the kernel's
    expect(textOf(await run(client, 'name.upper()'))).toContain("'ADA 1'");
  });

  it('a declined form ends the input (EOFError) and the result says the user declined', async () => {
    const { client } = await clientAnswering(() => ({ action: 'decline' }));
    const r = await run(client, 'input("Proceed? ")');
    expect(r.isError).toBe(true);
    expect(textOf(r)).toContain('EOFError');
    expect(textOf(r)).toContain('The user declined the input() of cell 1');
  });

  it('getpass() is not asked through a form: EOFError and the way to pass a secret', async () => {
    const { client, asked } = await clientAnswering(() => ({ action: 'accept', content: { input: 'nope' } }));
    const r = await run(client, 'import getpass\ngetpass.getpass("Token: ")');
    expect(r.isError).toBe(true);
    expect(asked).toEqual([]);
    expect(textOf(r)).toContain('EOFError');
    expect(textOf(r)).toMatch(
      /getpass\(\) was not asked of the user: MCP forbids asking for passwords.*--pass-env NAME/,
    );
  });
});

describe('an input() form whose cell ends first', () => {
  it('is cancelled when the cell times out, and the kernel serves on', async () => {
    const { client } = await startStdio({ capabilities: { elicitation: {} } });
    let asked: string | number | undefined;
    let cancelled: unknown;
    client.setRequestHandler(ElicitRequestSchema, (_request, extra) => {
      asked = extra.requestId;
      return new Promise<ElicitResult>(() => {}); // the user never answers
    });
    // (what the server sends: its notifications/cancelled for the form)
    const transport = client.transport as Transport;
    const deliver = transport.onmessage;
    transport.onmessage = (message, extra) => {
      const m = message as { method?: string; params?: { requestId?: unknown } };
      if (m.method === 'notifications/cancelled') cancelled = m.params?.requestId;
      deliver?.(message, extra);
    };
    const r = await client.callTool({
      name: 'eval',
      arguments: { cells: [{ language: 'py', code: 'input("Waiting? ")', timeout: 1 }] },
    });
    expect(textOf(r)).toContain('Cell 1 timed out');
    await waitFor(() => cancelled !== undefined, 20_000, 'the form to be cancelled');
    expect(cancelled).toBe(asked);
    expect(textOf(await run(client, '6 * 7'))).toContain('42');
  });
});

describe('input() through elicitation over Streamable HTTP', () => {
  it("the form travels on the call's stream and the answer reaches the cell", async () => {
    const server = await startHttp();
    const { client } = await httpClient(server, { capabilities: { elicitation: { form: {} } } });
    client.setRequestHandler(ElicitRequestSchema, async () => ({
      action: 'accept',
      content: { input: '42' },
    }));
    const r = await run(client, 'int(input("n? ")) + 1');
    expect(r.isError).toBeFalsy();
    expect(textOf(r)).toContain('43');
    await client.close();
  });
});

describe('input() without elicitation', () => {
  it('raises StdinNotImplementedError with its advice, as before', async () => {
    const { client } = await startStdio();
    const r = await run(client, 'input("x? ")');
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(
      /StdinNotImplementedError: stdin is not available: this cell was run without it/,
    );
  });
});
