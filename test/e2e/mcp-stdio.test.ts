/**
 * `omp-eval mcp` over stdio, driven by the MCP SDK's own Client: the real CLI, real kernels.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cli } from '../helpers/cli.js';
import { waitFor } from '../helpers/kernel.js';
import {
  evalCell,
  hostGuards,
  isHostGuard,
  kernelPid,
  pidAlive,
  type StdioServer,
  startStdio,
  stopAll,
  textOf,
} from '../helpers/mcp.js';

/**
 * One server for the file (starting one costs seconds on a loaded machine); each test works in a
 * session of its own, which has kernels of its own.
 */
let shared: StdioServer;
beforeAll(async () => {
  shared = await startStdio({ args: ['--python', '/usr/bin/python3', 'mcp'] });
});
afterAll(stopAll);

let sessions = 0;
/** The shared client, with every tool call in a new session unless the call names one. */
function sessionClient(): { client: Client; session: string } {
  const session = `t${++sessions}`;
  const client = Object.create(shared.client) as Client;
  client.callTool = (params, schema, options) =>
    shared.client.callTool({ ...params, arguments: { session, ...params.arguments } }, schema, options);
  return { client, session };
}

interface CellOut {
  status: string;
  timedOut?: true;
  kernelKilled?: true;
  text?: string;
  executionCount?: number;
  images: { mimeType: string; width?: number; height?: number; attached: boolean }[];
  fullOutput?: { uri: string; path: string; totalChars: number };
  error?: { ename: string };
}
const cellsOf = (result: unknown) =>
  ((result as { structuredContent: unknown }).structuredContent as { cells: CellOut[] }).cells;

describe('omp-eval mcp over stdio', { timeout: 60_000 }, () => {
  it('initializes and lists its tools with valid JSON Schemas', async () => {
    const { client } = sessionClient();
    expect(client.getServerVersion()?.name).toBe('omp-eval');
    expect(client.getServerCapabilities()).toMatchObject({ tools: {}, resources: {} });
    expect(client.getInstructions()).toMatch(/persist/);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['eval', 'restart', 'variables']);
    const ajv = new AjvJsonSchemaValidator();
    for (const tool of tools) {
      expect(tool.description?.length).toBeGreaterThan(100);
      ajv.getValidator(tool.inputSchema); // throws on an invalid schema
      if (tool.outputSchema) ajv.getValidator(tool.outputSchema);
    }
    // eval declares the shape of its structuredContent, and a real result matches it.
    const evalOutput = ajv.getValidator((tools[0] as (typeof tools)[number]).outputSchema as object);
    const one = await evalCell(client, '1 + 1');
    expect(evalOutput((one as { structuredContent: unknown }).structuredContent)).toMatchObject({
      valid: true,
    });
    const evalInput = ajv.getValidator((tools[0] as (typeof tools)[number]).inputSchema);
    expect(evalInput({ cells: [{ language: 'py', code: '1' }], session: 'a' }).valid).toBe(true);
    expect(evalInput({ cells: [{ language: 'rb', code: '1' }] }).valid).toBe(false);
    const description = tools[0]?.description ?? '';
    expect(description).toMatch(/persistent kernel[\s\S]*stay in memory from call to call/);
    expect(description).toMatch(/each cell has a timeout \(30 s unless/);
    for (const topic of [/persist/i, /timeout/i, /artifact:\/\//, /restart/, /reset/])
      expect(description).toMatch(topic);
  });

  it('keeps state from call to call, in both languages, and reports it with variables', async () => {
    const { client } = sessionClient();
    const first = await evalCell(client, 'import json\ndata = {"a": [1, 2, 3]}\nn = 41');
    expect(first.isError).toBe(false);
    expect(textOf(await evalCell(client, 'n + 1'))).toBe('42');
    await evalCell(client, 'const items = [1, 2, 3]; total = 6', {}, 'js');
    expect(textOf(await evalCell(client, 'items.length + total', {}, 'js'))).toBe('9');

    const listed = await client.callTool({ name: 'variables', arguments: {} });
    const structured = listed.structuredContent as {
      kernels: Record<string, string>;
      variables: { name: string; language: string; type: string; summary: string }[];
    };
    expect(structured.kernels).toEqual({ py: 'running', js: 'running' });
    const names = structured.variables.map((v) => `${v.language}:${v.name}:${v.type}:${v.summary}`);
    expect(names).toEqual(
      expect.arrayContaining(['py:data:dict:n=1', 'py:n:int:41', 'js:items:Array:n=3', 'js:total:number:6']),
    );
    expect(names.find((n) => n.startsWith('py:json:'))).toMatch(/^py:json:module:<module 'json'/);
    expect(names.some((n) => /:(log|phase|read|display|require)\b/.test(n))).toBe(false);
    expect(textOf(listed)).toMatch(/Variable\s+Type\s+Data\/Info[\s\S]*n\s+int\s+41/);
    // The introspection left no trace: no execution count, no names, _ unchanged.
    const after = await evalCell(client, '%who');
    expect(textOf(after).split(/\s+/).filter(Boolean)).toEqual(['data', 'json', 'n']);
    expect(cellsOf(after)[0]?.executionCount).toBe(3);
  });

  it('answers with the same text as omp-eval tool (but for what outlives the call), and isError when a cell failed', async () => {
    const { client } = sessionClient();
    const cells = [
      { language: 'py', code: 'print("one")', title: 'first' },
      { language: 'py', code: '1 / 0' },
      { language: 'py', code: '"never"' },
    ];
    const viaTool = await cli(['--python', '/usr/bin/python3', 'tool'], { input: JSON.stringify({ cells }) });
    const expected = JSON.parse(viaTool.stdout);
    const result = await client.callTool({ name: 'eval', arguments: { cells } });
    expect(result.isError).toBe(true);
    // The MCP server keeps its kernels between calls; omp-eval tool ends them with the call.
    expect(textOf(result)).toBe(
      expected.text
        .replace(
          'Earlier cells succeeded, but their state ends with this call.',
          'Earlier cells succeeded—their state persists.',
        )
        .replace('Fix cell 2 and send the cells again.', 'Fix only cell 2.'),
    );
    expect(textOf(result)).toMatch(
      /ZeroDivisionError[\s\S]*Cell 2 failed \(exit code 1\)\. Earlier cells succeeded—their state persists\. Cell 3 was not run\. Fix only cell 2\.$/,
    );
    expect(cellsOf(result).map((c) => c.status)).toEqual(['ok', 'error', 'skipped']);
    expect(cellsOf(result)[1]?.error).toEqual({ ename: 'ZeroDivisionError', evalue: 'division by zero' });
  });

  it('returns a matplotlib figure as an image block and scales a large image down', async () => {
    const { client } = sessionClient();
    const result = await evalCell(
      client,
      'import matplotlib.pyplot as plt\nplt.plot([1, 3, 2])\nplt.title("t")\nplt.show()',
    );
    expect(result.isError).toBe(false);
    const images = result.content.filter((c) => c.type === 'image');
    expect(images).toHaveLength(1);
    const png = Buffer.from((images[0] as { data: string }).data, 'base64');
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([640, 480]);
    expect(cellsOf(result)[0]?.images).toEqual([
      { mimeType: 'image/png', width: 640, height: 480, attached: true },
    ]);

    const big = await evalCell(
      client,
      'from PIL import Image\nimport random\nrandom.seed(1)\nimg = Image.effect_noise((4000, 1000), 80).convert("RGB")\nimg',
    );
    const block = big.content.find((c) => c.type === 'image') as { data: string; mimeType: string };
    const info = cellsOf(big)[0]?.images[0];
    expect(info).toMatchObject({ width: 1568, height: 392, attached: true });
    expect(block.data.length * 0.75).toBeLessThanOrEqual(1024 * 1024);
    expect(textOf(big)).toMatch(/scaled from 4000×1000/);
  }, 60_000);

  it('times a cell out, keeps the state and says so', async () => {
    const { client } = sessionClient();
    await evalCell(client, 'kept = "yes"');
    const result = await client.callTool({
      name: 'eval',
      arguments: { cells: [{ language: 'py', code: 'while True: pass', timeout: 1 }] },
    });
    expect(result.isError).toBe(true);
    expect(cellsOf(result)[0]).toMatchObject({ status: 'cancelled', timedOut: true });
    expect(cellsOf(result)[0]?.kernelKilled).toBeUndefined();
    expect(textOf(result)).toMatch(/timed out after 1s/);
    expect(textOf(await evalCell(client, 'kept'))).toBe("'yes'");
  });

  it('interrupts a cancelled cell and keeps the state; the next call says so', async () => {
    const { client } = sessionClient();
    await evalCell(client, 'x = 41');
    const controller = new AbortController();
    const messages: string[] = [];
    const cancelled = client.callTool(
      { name: 'eval', arguments: { cells: [{ language: 'py', code: 'while True: pass' }] } },
      undefined,
      {
        signal: controller.signal,
        onprogress: (p) => {
          messages.push(p.message ?? '');
          if (p.message?.includes('started')) controller.abort();
        },
      },
    );
    await expect(cancelled).rejects.toThrow(/abort/i);
    const next = await evalCell(client, 'x + 1');
    expect(next.isError).toBe(false);
    expect(textOf(next)).toMatch(
      /previous eval call was cancelled: its cell 1 was interrupted, and the Python kernel kept its state/,
    );
    expect(textOf(next)).toMatch(/\n42$/);
  });

  it('kills a cell that ignores SIGINT after 5 s; the next call says the state was lost', async () => {
    const { client } = sessionClient();
    await evalCell(client, 'x = 1');
    const pid = await kernelPid(client);
    const controller = new AbortController();
    const cancelled = client.callTool(
      {
        name: 'eval',
        arguments: {
          cells: [
            {
              language: 'py',
              code: 'import signal, time\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nlog("ignoring SIGINT")\nwhile True: time.sleep(0.05)',
            },
          ],
        },
      },
      undefined,
      // Cancel once SIGINT is ignored (at `started` the cell may not have got that far).
      {
        signal: controller.signal,
        onprogress: (p) => p.message?.includes('log: ignoring') && controller.abort(),
      },
    );
    await expect(cancelled).rejects.toThrow(/abort/i);
    const next = await evalCell(client, '"x" in globals()');
    // The call's notice first (the model never saw the cancelled result), then the cell: the
    // kill said once (not again by the engine's notice that a new kernel runs the cell).
    expect(textOf(next).split('\n')).toEqual([
      '[The previous eval call was cancelled and its cell 1 did not respond to the interrupt, so the Python kernel was killed: the Python state is gone, and the next py cell runs in a new kernel.]',
      '',
      'False',
    ]);
    expect(pidAlive(pid)).toBe(false);
  });

  it('reports a kernel that died and recovers with a new one', async () => {
    const { client } = sessionClient();
    await evalCell(client, 'x = 1');
    const died = await evalCell(client, 'import os, signal\nos.kill(os.getpid(), signal.SIGKILL)');
    expect(died.isError).toBe(true);
    expect(textOf(died)).toMatch(/kernel died while running this cell \(signal SIGKILL\)/);
    expect(textOf(died)).toMatch(/Cell 1 failed \(the kernel exited, exit code 137\)/);
    // The result said so: the next one does not say it again.
    const next = await evalCell(client, '"x" in globals(), 1 + 1');
    expect(next.isError).toBe(false);
    expect(textOf(next)).toBe('(False, 2)');
  });

  it('answers a line that is not JSON-RPC (Parse error, Invalid Request, too long) and serves on', async () => {
    const child = spawn(process.execPath, [BIN, 'mcp'], { stdio: ['pipe', 'pipe', 'pipe'] });
    try {
      const lines: Record<string, unknown>[] = [];
      let buffered = '';
      child.stdout.on('data', (d) => {
        buffered += d;
        const parts = buffered.split('\n');
        buffered = parts.pop() as string;
        for (const part of parts) lines.push(JSON.parse(part));
      });
      let stderr = '';
      child.stderr.on('data', (d) => {
        stderr += d;
      });
      const init = {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      };
      child.stdin.write('this is not json\n');
      child.stdin.write('{"jsonrpc": "2.0", "id": 7, "method": 5}\n');
      // (over the 10 MB a message may take: the SDK's transport would close the connection)
      child.stdin.write(`{"x": "${'y'.repeat(11 * 1024 * 1024)}"}\n`);
      child.stdin.write(`${JSON.stringify(init)}\n`);
      await waitFor(() => lines.length >= 4, 60_000, 'four answers');
      expect(lines.slice(0, 3)).toEqual([
        { jsonrpc: '2.0', id: null, error: { code: -32700, message: expect.stringMatching(/^Parse error/) } },
        {
          jsonrpc: '2.0',
          id: 7,
          error: { code: -32600, message: expect.stringMatching(/^Invalid Request/) },
        },
        {
          jsonrpc: '2.0',
          id: null,
          error: { code: -32600, message: expect.stringMatching(/longer than 10 MB/) },
        },
      ]);
      expect(lines[3]).toMatchObject({ jsonrpc: '2.0', id: 1, result: { serverInfo: { name: 'omp-eval' } } });
      expect(stderr).toContain('omp-eval mcp: Parse error: the line is not JSON');
    } finally {
      child.kill();
    }
  });

  it('answers invalid arguments with a clear error', async () => {
    const { client } = sessionClient();
    const bad = await client.callTool({
      name: 'eval',
      arguments: { cells: [{ language: 'rb', code: 3, timeout: -1 }], session: 'no spaces', extra: true },
    });
    expect(bad.isError).toBe(true);
    const text = textOf(bad);
    expect(text).toMatch(/^Invalid arguments for eval:/);
    for (const problem of [
      /"session" must be a name/,
      /unknown field "extra" \(accepted: "cells", "session"\)/,
      /cells\[0\]\.language must be "py" or "js", got "rb"/,
      /cells\[0\]\.code must be a string, got 3/,
      /cells\[0\]\.timeout must be a positive number of seconds \(clamped to 1\.\.3600\), got -1/,
    ])
      expect(text).toMatch(problem);
    expect(textOf(await client.callTool({ name: 'eval', arguments: { cells: [] } }))).toMatch(
      /at least one cell/,
    );
    expect(textOf(await client.callTool({ name: 'restart', arguments: { language: 'rust' } }))).toMatch(
      /"language" must be "py", "js" or "both", got "rust"/,
    );
    await expect(client.callTool({ name: 'shell', arguments: {} })).rejects.toThrow(/Unknown tool "shell"/);
  });

  it('runs two concurrent calls in the order they were sent', async () => {
    const { client } = sessionClient();
    // If the second ran first, `seq` would not exist yet.
    const [first, second] = await Promise.all([
      evalCell(client, 'import time\ntime.sleep(0.3)\nseq = ["first"]'),
      evalCell(client, 'seq.append("second")\nseq'),
    ]);
    expect(first.isError).toBe(false);
    expect(textOf(second)).toBe("['first', 'second']");
  });

  it('sends progress notifications while a cell runs: log(), phase(), %cd and a tail of the output', async () => {
    const { client } = sessionClient();
    const dir = await mkdtemp(join(tmpdir(), 'omp-mcp-'));
    const release = join(dir, 'release');
    const messages: string[] = [];
    // The cell waits for a file that the test writes only after it saw the progress.
    const code = [
      'import os, time',
      'phase("loading")',
      `%cd ${dir}`,
      'log("step one")',
      'print("some output")',
      `while not os.path.exists(${JSON.stringify(release)}): time.sleep(0.01)`,
      '"done"',
    ].join('\n');
    let done = false;
    const call = client
      .callTool({ name: 'eval', arguments: { cells: [{ language: 'py', code }] } }, undefined, {
        onprogress: (p) => {
          messages.push(p.message ?? '');
        },
      })
      .finally(() => {
        done = true;
      });
    call.catch(() => {}); // awaited below; a failure before that must not be unhandled
    // Status lines travel as frames and the output as raw text: either may reach the host first.
    const expected = [/cell started/, /phase: loading/, new RegExp(`cd: path=${dir}`), /log: step one/];
    await waitFor(
      () =>
        messages.some((m) => /^output: [\s\S]*some output$/.test(m)) &&
        expected.every((re) => re.test(messages.join('\n'))),
      60_000,
      'the status lines and the output tail',
    );
    expect(done).toBe(false);
    writeFileSync(release, '');
    expect(textOf(await call)).toMatch(/'done'$/);
  });

  it('keeps large output as an artifact resource and names its file', async () => {
    const { client } = sessionClient();
    const result = await evalCell(client, 'for i in range(5000): print("line", i, "x" * 40)');
    const cell = cellsOf(result)[0] as CellOut;
    expect(cell.fullOutput?.uri).toMatch(/^artifact:\/\/[\w-]+$/);
    const path = cell.fullOutput?.path as string;
    expect(existsSync(path)).toBe(true);
    // Named once in the text, by the marker where the output was cut (its URI and its file).
    expect(textOf(result)).toContain(`full output: ${cell.fullOutput?.uri} (${path})`);
    expect(textOf(result).split(cell.fullOutput?.uri as string)).toHaveLength(2);
    expect(result.content.some((c) => c.type === 'resource_link' && c.uri === cell.fullOutput?.uri)).toBe(
      true,
    );
    const read = await client.readResource({ uri: cell.fullOutput?.uri as string });
    const text = (read.contents[0] as { text: string }).text;
    expect(text).toBe(readFileSync(path, 'utf8'));
    expect(text.split('\n')).toHaveLength(5001);
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toContain(cell.fullOutput?.uri);
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates[0]?.uriTemplate).toBe('artifact://{id}');
    await expect(client.readResource({ uri: 'artifact://no-such-id' })).rejects.toThrow(/Resource not found/);
  });

  it('restarts a kernel, saying that state was lost', async () => {
    const { client, session } = sessionClient();
    await evalCell(client, 'x = 1');
    await evalCell(client, 'y = 2', {}, 'js');
    const restarted = await client.callTool({ name: 'restart', arguments: { language: 'py' } });
    expect(textOf(restarted)).toMatch(
      new RegExp(`Restarted the Python kernel of session "${session}": all state .* is lost`),
    );
    expect(restarted.structuredContent).toMatchObject({ restarted: ['py'], stateLost: true });
    expect(textOf(await evalCell(client, '"x" in globals()'))).toBe('False');
    expect(textOf(await evalCell(client, 'y', {}, 'js'))).toBe('2');
    const both = await client.callTool({ name: 'restart', arguments: {} });
    expect(textOf(both)).toMatch(/^Restarted the Python and JavaScript kernels of session/);
    expect(both.structuredContent).toMatchObject({ restarted: ['py', 'js'], stateLost: true });
    expect(textOf(await evalCell(client, 'typeof y', {}, 'js'))).toBe("'undefined'");
    const again = await client.callTool({ name: 'restart', arguments: { language: 'py', session: 'other' } });
    expect(textOf(again)).toMatch(/No Python kernel of session "other" was running/);
  });

  it('keeps named sessions apart', async () => {
    const { client } = sessionClient();
    await evalCell(client, 'x = "mine"');
    await evalCell(client, 'x = "scratch"', { session: 'scratch' });
    expect(textOf(await evalCell(client, 'x'))).toBe("'mine'");
    expect(textOf(await evalCell(client, 'x', { session: 'scratch' }))).toBe("'scratch'");
  });

  it('ends when stdin closes, leaving no kernel or guard process behind', async () => {
    const server = await startStdio();
    const py = await kernelPid(server.client);
    const js = await kernelPid(server.client, {}, 'js');
    const other = await kernelPid(server.client, { session: 'b' });
    expect([py, js, other].every(pidAlive)).toBe(true);
    const guards = hostGuards(server.child.pid as number);
    expect(guards).toHaveLength(1); // the check finds the live guard
    server.child.stdin?.end();
    expect(await server.exited).toEqual({ code: 0, signal: null });
    for (const pid of [py, js, other]) expect(pidAlive(pid)).toBe(false);
    await waitFor(() => !guards.some(isHostGuard), 60_000, 'the guard to end');
  });
});
