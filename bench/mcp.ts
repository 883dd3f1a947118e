/**
 * `npm run bench`, MCP part: an eval of `1+1` through a real MCP client (the SDK's Client over
 * stdio, and over Streamable HTTP) against jupyter_client's round trip on ipykernel and against
 * `omp-eval tool`, a process per call; on 2025-11-25 (the v1 client) and on 2026-07-28 (the v2
 * client, served by the v2 SDK).
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernHttp,
} from '@modelcontextprotocol/client';
import { StdioClientTransport as ModernStdio } from '@modelcontextprotocol/client/stdio';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { fitImage } from '../src/modes/mcp/images.js';
import { type BenchRow, jupyterBaseline, median, ms, printTable, timeIt } from './lib.js';

const BIN = fileURLToPath(new URL('../../bin/omp-eval.js', import.meta.url));
const CALLS = 100;
const TOOL_CALLS = 7;

const evalArgs = (code: string, language = 'py') => ({
  name: 'eval',
  arguments: { cells: [{ language, code }] },
});

/** A client of either SDK: what the benchmark calls. */
type AnyClient = Pick<Client, 'callTool'> | Pick<ModernClient, 'callTool'>;

async function expectText(client: AnyClient, code: string, language: string, want: string) {
  const result = await client.callTool(evalArgs(code, language));
  const block = (result.content as { type: string; text?: string }[])[0];
  if (block?.text !== want) throw new Error(`unexpected result: ${JSON.stringify(result.content)}`);
}

/** The median of `CALLS` evals of `1+1` (after a warm-up call that starts the kernel). */
async function evalMedian(client: AnyClient, language = 'py'): Promise<number> {
  const code = '1+1';
  await expectText(client, code, language, '2');
  const times: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    const t = performance.now();
    await client.callTool(evalArgs(code, language));
    times.push(performance.now() - t);
  }
  return median(times);
}

/** The median of `CALLS` pings: what the transport alone costs a call. */
async function pingMedian(client: Client): Promise<number> {
  return timeIt(CALLS, async () => {
    await client.ping();
  });
}

/** One `omp-eval tool` call, as an agent without MCP makes it. */
function toolCall(): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'tool'], { stdio: ['pipe', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
    });
    child.on('error', reject);
    child.on('close', () => (JSON.parse(out).text === '2' ? resolve() : reject(new Error(out))));
    child.stdin.end(JSON.stringify({ cells: [{ language: 'py', code: '1+1' }] }));
  });
}

async function startHttp(): Promise<{ url: string; token: string; stop: () => void }> {
  const child = spawn(process.execPath, [BIN, 'mcp', '--http', '127.0.0.1:0'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  await new Promise<void>((resolve) => {
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      if (/bearer token \S+/.test(out)) resolve();
    });
  });
  return {
    url: /(http:\/\/\S+)/.exec(out)?.[1] as string,
    token: /bearer token (\S+)/.exec(out)?.[1] as string,
    stop: () => child.kill('SIGTERM'),
  };
}

/** A v2 client pinned to MCP 2026-07-28 (no initialize: server/discover, then the calls). */
function modernClient(): ModernClient {
  return new ModernClient(
    { name: 'bench', version: '2' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
}

/** The 2026-07-28 rows: 1+1 over stdio and over HTTP, each against the Jupyter round trip. */
async function modernRows(jupyterMs: number | undefined, httpServer: { url: string; token: string }) {
  const stdio = modernClient();
  await stdio.connect(new ModernStdio({ command: process.execPath, args: [BIN, 'mcp'] }));
  const overStdio = await evalMedian(stdio);
  await stdio.close();
  const http = modernClient();
  await http.connect(
    new ModernHttp(new URL(httpServer.url), {
      requestInit: { headers: { Authorization: `Bearer ${httpServer.token}` } },
    }),
  );
  const overHttp = await evalMedian(http);
  await http.close();
  return [
    versusJupyter('eval 1+1, MCP 2026-07-28 (v2 client) over stdio', overStdio, jupyterMs, '≤ 0.5×'),
    versusJupyter('eval 1+1, MCP 2026-07-28 (v2 client) over Streamable HTTP', overHttp, jupyterMs, '-'),
  ];
}

function versusJupyter(what: string, omp: number, jupyterMs: number | undefined, target: string): BenchRow {
  return {
    what: `${what} vs jupyter_client round trip (ipykernel)`,
    omp: ms(omp),
    baseline: jupyterMs === undefined ? '-' : ms(jupyterMs),
    ratio: jupyterMs === undefined ? '-' : `${(omp / jupyterMs).toFixed(2)}×`,
    target,
  };
}

async function main() {
  const rows: BenchRow[] = [];
  // (alone first: its kernel would compete with the calls below)
  const jupyterMs = (await jupyterBaseline(CALLS, 1))?.roundTripMs;
  const t0 = performance.now();
  const stdio = new Client({ name: 'bench', version: '1' });
  await stdio.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp'] }));
  await expectText(stdio, '1+1', 'py', '2');
  const firstResult = performance.now() - t0;
  const py = await evalMedian(stdio);
  const js = await evalMedian(stdio, 'js');
  const stdioPing = await pingMedian(stdio);
  const tool = await timeIt(TOOL_CALLS, toolCall);
  rows.push({
    what: `eval 1+1 over MCP stdio (median of ${CALLS}) vs omp-eval tool (process per call)`,
    omp: ms(py),
    baseline: ms(tool),
    ratio: `${Math.round(tool / py)}× faster`,
    target: '< 2 ms',
  });
  rows.push(versusJupyter('eval 1+1 over MCP stdio (2025-11-25)', py, jupyterMs, '≤ 0.5×'));
  rows.push({ what: 'eval js 1+1 over MCP stdio', omp: ms(js), baseline: '-', ratio: '-', target: '< 2 ms' });
  rows.push({
    what: 'MCP ping over stdio (the transport alone)',
    omp: ms(stdioPing),
    baseline: '-',
    ratio: '-',
    target: '-',
  });
  rows.push({
    what: 'MCP stdio: spawn, initialize, first 1+1 (kernel start)',
    omp: ms(firstResult),
    baseline: ms(tool),
    ratio: `${(tool / firstResult).toFixed(1)}×`,
    target: '-',
  });
  await stdio.close();

  const server = await startHttp();
  try {
    const http = new Client({ name: 'bench', version: '1' });
    const transport = new StreamableHTTPClientTransport(new URL(server.url), {
      requestInit: { headers: { Authorization: `Bearer ${server.token}` } },
    });
    await http.connect(transport);
    const overHttp = await evalMedian(http);
    const httpPing = await pingMedian(http);
    rows.push({
      what: 'eval 1+1 over MCP Streamable HTTP',
      omp: ms(overHttp),
      baseline: ms(py),
      ratio: `${(overHttp / py).toFixed(1)}× stdio`,
      target: '-',
    });
    rows.push(versusJupyter('eval 1+1 over MCP Streamable HTTP (2025-11-25)', overHttp, jupyterMs, '-'));
    rows.push({
      what: 'MCP ping over Streamable HTTP (the transport alone)',
      omp: ms(httpPing),
      baseline: '-',
      ratio: '-',
      target: '-',
    });
    await http.close();
    rows.push(...(await modernRows(jupyterMs, server)));
  } finally {
    server.stop();
  }

  const { Jimp } = await import('jimp');
  const big = (
    await new Jimp({ width: 3000, height: 2000, color: 0x3366ccff }).getBuffer('image/png')
  ).toString('base64');
  const fit = await timeIt(3, async () => {
    await fitImage({ mime: 'image/png', data: big, width: 3000, height: 2000 });
  });
  rows.push({
    what: 'image block: 3000×2000 PNG scaled to 1568 px (jimp)',
    omp: ms(fit),
    baseline: '-',
    ratio: '-',
    target: '-',
  });

  printTable(rows, 'MCP benchmark', 'omp-eval mcp');
}

await main();
