/**
 * The MCP server's stdin guard (src/modes/mcp/lineGuard.ts) in front of the SDK's own stdio
 * transport, both with a small limit: lines that are no JSON-RPC message are answered and left
 * out, good lines reach the transport byte for byte, and no line the guard lets through makes the
 * transport close the connection.
 */
import { PassThrough, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { describe, expect, it } from 'vitest';
import { StdioBatches } from '../../src/modes/mcp/batches.js';
import { type JsonRpcErrorResponse, JsonRpcLineGuard } from '../../src/modes/mcp/lineGuard.js';

const LIMIT = 1000;

async function feed(chunks: (string | Buffer)[], batches?: StdioBatches) {
  const answers: JsonRpcErrorResponse[] = [];
  const reports: string[] = [];
  const guard = new JsonRpcLineGuard(
    (response) => answers.push(response),
    (what) => reports.push(what),
    LIMIT,
    batches,
  );
  const transport = new StdioServerTransport(
    guard as unknown as NodeJS.ReadStream,
    new Writable({ write: (_c, _e, done) => done() }) as unknown as NodeJS.WriteStream,
    { maxBufferSize: LIMIT },
  );
  const messages: unknown[] = [];
  const errors: string[] = [];
  let closed = false;
  transport.onmessage = (m) => messages.push(m);
  transport.onerror = (e) => errors.push(e.message);
  transport.onclose = () => {
    closed = true;
  };
  await transport.start();
  const input = new PassThrough();
  input.pipe(guard);
  for (const chunk of chunks) input.write(chunk);
  input.end();
  await new Promise((resolve) => guard.on('end', resolve).resume());
  return { answers, reports, messages, errors, closed };
}

const note = (params: Record<string, unknown>) => JSON.stringify({ jsonrpc: '2.0', method: 'n', params });

describe("the MCP server's stdin guard", () => {
  it('answers what is not JSON or not JSON-RPC, passes the rest, and never lets the transport close', async () => {
    // A notification of exactly the limit with its newline, one byte over, and one with invalid
    // UTF-8 in a string (each invalid byte would be three as U+FFFD, past the limit).
    const pad = (total: number) => note({ x: 'y'.repeat(total - note({ x: '' }).length) });
    const invalid = Buffer.concat([
      Buffer.from('{"jsonrpc":"2.0","method":"n","params":{"x":"'),
      Buffer.alloc(600, 0xff),
      Buffer.from('"}}\n'),
    ]);
    const r = await feed([
      'not json\n',
      '{"jsonrpc":"2.0","id":7,"method":5}\r\n',
      '{"jsonrpc":"2.0","id":8,"result":5,"error":{}}\n',
      `${pad(LIMIT - 1)}\n`,
      `${pad(LIMIT)}\n`,
      invalid,
      // a character split between chunks
      '{"jsonrpc":"2.0","method":"n","params":{"e":"\xe9',
      Buffer.from('😀"}}\n').subarray(0, 2),
      Buffer.from('😀"}}\n').subarray(2),
    ]);
    expect(r.answers).toEqual([
      { jsonrpc: '2.0', id: null, error: { code: -32700, message: expect.stringMatching(/^Parse error/) } },
      { jsonrpc: '2.0', id: 7, error: { code: -32600, message: expect.stringMatching(/^Invalid Request/) } },
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.stringMatching(/longer than/) } },
    ]);
    // (an invalid response is reported, never answered: its id is the server's own)
    expect(r.reports.some((line) => line.includes('a response; not answered'))).toBe(true);
    expect(r.messages).toHaveLength(3);
    expect((r.messages[0] as { params: { x: string } }).params.x).toHaveLength(
      LIMIT - 1 - note({ x: '' }).length,
    );
    expect((r.messages[2] as { params: { e: string } }).params.e).toBe('é😀');
    expect(r.errors).toEqual([]);
    expect(r.closed).toBe(false);
  });

  it('takes a JSON-RPC batch only where the negotiated revision has them (2025-03-26), and answers it as one array', async () => {
    const request = (id: number, method: string) => ({ jsonrpc: '2.0', id, method });
    const batch = `${JSON.stringify([request(1, 'ping'), { jsonrpc: '2.0', method: 'n' }, 7, request(2, 'tools/list')])}\n`;
    for (const version of [undefined, '2025-06-18', '2025-11-25']) {
      const written: string[] = [];
      const r = await feed(
        [batch],
        new StdioBatches(
          () => version,
          (line) => written.push(line),
        ),
      );
      expect(r.messages, version).toEqual([]);
      expect(r.answers).toEqual([
        {
          jsonrpc: '2.0',
          id: null,
          error: { code: -32600, message: expect.stringMatching(/^Invalid Request: .*batch/) },
        },
      ]);
      if (version) expect(r.answers[0]?.error.message).toContain(`not part of MCP ${version}`);
    }
    const written: string[] = [];
    const batches = new StdioBatches(
      () => '2025-03-26',
      (line) => written.push(line),
    );
    const r = await feed([batch, '[]\n'], batches);
    // Each message reaches the transport by itself; the member that is none is answered in the batch.
    expect(r.messages).toEqual([
      request(1, 'ping'),
      { jsonrpc: '2.0', method: 'n' },
      request(2, 'tools/list'),
    ]);
    expect(r.answers).toEqual([
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request: an empty batch' } },
    ]);
    // The answers go out together once the last is in; others pass.
    expect(batches.hold({ jsonrpc: '2.0', id: 2, result: { tools: [] } })).toBe(true);
    expect(
      batches.hold({
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken: 1, progress: 1 },
      }),
    ).toBe(false);
    expect(batches.hold({ jsonrpc: '2.0', id: 9, result: {} })).toBe(false);
    expect(written).toEqual([]);
    expect(batches.hold({ jsonrpc: '2.0', id: 1, result: {} })).toBe(true);
    expect(written.map((line) => JSON.parse(line))).toEqual([
      [
        {
          jsonrpc: '2.0',
          id: null,
          error: { code: -32600, message: expect.stringMatching(/^Invalid Request/) },
        },
        { jsonrpc: '2.0', id: 2, result: { tools: [] } },
        { jsonrpc: '2.0', id: 1, result: {} },
      ],
    ]);
  });
});
