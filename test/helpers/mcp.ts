/**
 * MCP clients for the tests: the SDK's own Client, talking to the real `bin/omp-eval.js mcp` over
 * stdio (a child process whose pipes the test holds) or over Streamable HTTP.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult, ClientCapabilities, JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { GUARD_SCRIPT } from '../../src/eval/process/hostGuard.js';
import { BIN } from './cli.js';
import { waitFor } from './kernel.js';

/**
 * The SDK's stdio client transport over a pair of streams: the server's input and output (a
 * child's pipes, or an in-process server's streams). The test can end the input and watch how the
 * server ends (StdioClientTransport would SIGTERM a child after 2 s).
 */
export class StreamTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private readonly buffer = new ReadBuffer();

  constructor(
    private readonly input: NodeJS.WritableStream | null,
    private readonly output: NodeJS.ReadableStream | null,
    private readonly events: NodeJS.EventEmitter | null = output,
  ) {}

  async start() {
    this.output?.on('data', (chunk: Buffer) => {
      this.buffer.append(chunk);
      for (let message = this.buffer.readMessage(); message; message = this.buffer.readMessage())
        this.onmessage?.(message);
    });
    this.events?.on('close', () => this.onclose?.());
    this.events?.on('error', (err: Error) => this.onerror?.(err));
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (this.input?.write(serializeMessage(message))) resolve();
      else this.input?.once('drain', resolve);
    });
  }

  async close() {
    this.input?.end();
  }
}

/** The transport over a child the test owns. */
const childTransport = (child: ChildProcess) => new StreamTransport(child.stdin, child.stdout, child);

export interface StdioServer {
  client: Client;
  child: ChildProcess;
  stderr: () => string;
  /** Resolves with the exit code and signal once the server process ended. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const open: StdioServer[] = [];

/** Starts `omp-eval [globalArgs] mcp [args]` and connects the SDK client to it. */
export async function startStdio(
  opts: { args?: string[]; env?: NodeJS.ProcessEnv; capabilities?: ClientCapabilities; cwd?: string } = {},
): Promise<StdioServer> {
  const child = spawn(process.execPath, [BIN, ...(opts.args ?? ['mcp'])], {
    env: { ...process.env, ...opts.env },
    stdio: ['pipe', 'pipe', 'pipe'],
    ...(opts.cwd ? { cwd: opts.cwd } : {}),
  });
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const client = new Client(
    { name: 'omp-eval-tests', version: '1.0.0' },
    { capabilities: opts.capabilities ?? {} },
  );
  const server = { client, child, stderr: () => stderr, exited };
  open.push(server);
  await client.connect(childTransport(child));
  return server;
}

/** Ends every server the test started (closing stdin) and waits for each to exit. */
export async function stopAll(): Promise<void> {
  await Promise.all(
    open.splice(0).map(async (s) => {
      s.child.stdin?.end();
      const timer = setTimeout(() => s.child.kill('SIGKILL'), 20_000);
      await s.exited;
      clearTimeout(timer);
    }),
  );
}

export interface HttpServer {
  child: ChildProcess;
  url: string;
  token: string;
  stdout: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts `omp-eval mcp --http 127.0.0.1:0 [args]`; resolves once it printed its URL and token. */
export async function startHttp(args: string[] = [], env: NodeJS.ProcessEnv = {}): Promise<HttpServer> {
  const child = spawn(process.execPath, [BIN, 'mcp', '--http', '127.0.0.1:0', ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (d: string) => {
    stdout += d;
  });
  child.stderr?.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  await waitFor(
    () => /bearer token/.test(stdout) || child.exitCode !== null,
    20_000,
    `the server to listen (${stderr})`,
  );
  const url = /(http:\/\/\S+)/.exec(stdout)?.[1] ?? '';
  // The token is printed unless it came from OMP_EVAL_MCP_TOKEN.
  const token = /bearer token (?!from )(\S+)/.exec(stdout)?.[1] ?? env.OMP_EVAL_MCP_TOKEN ?? '';
  const server = { child, url, token, stdout: () => stdout, exited };
  httpServers.push(server);
  return server;
}

const httpServers: HttpServer[] = [];

export async function stopHttpServers(): Promise<void> {
  await Promise.all(
    httpServers.splice(0).map(async (s) => {
      if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill('SIGTERM');
      await s.exited;
    }),
  );
}

/** An SDK client connected over Streamable HTTP with the server's token. */
export async function httpClient(
  server: HttpServer,
  opts: { token?: string; capabilities?: ClientCapabilities } = {},
): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(server.url), {
    requestInit: { headers: { Authorization: `Bearer ${opts.token ?? server.token}` } },
  });
  const client = new Client(
    { name: 'omp-eval-tests', version: '1.0.0' },
    { capabilities: opts.capabilities ?? {} },
  );
  await client.connect(transport);
  return { client, transport };
}

/** The text block of a tool result. */
export function textOf(result: unknown): string {
  const content = (result as CallToolResult).content ?? [];
  return content.flatMap((c) => (c.type === 'text' ? [c.text] : [])).join('\n');
}

/**
 * The host pid of the kernel that runs this client's `language` cells (in `extra`'s session). A
 * sandboxed kernel (mcp's default) sees only its PID namespace: its runner is then found on the
 * host as the child of the bwrap processes whose command line names the kernel's $TMPDIR.
 */
export async function kernelPid(client: Client, extra: Record<string, unknown> = {}, language = 'py') {
  const code =
    language === 'py'
      ? 'import os; print(os.getpid(), os.environ.get("TMPDIR", ""))'
      : 'console.log(process.pid, process.env.TMPDIR ?? "")';
  const [inner, tmp = ''] = textOf(await evalCell(client, code, extra, language))
    .trim()
    .split(' ');
  if (!tmp.includes('omp-eval-sandbox-')) return Number(inner);
  const sandbox = processesMatching(`--bind ${tmp} `);
  const children = sandbox.flatMap((pid) =>
    readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number),
  );
  const runner = children.find((pid) => !sandbox.includes(pid));
  if (runner === undefined) throw new Error(`no runner found for the sandbox of ${tmp}`);
  return runner;
}

/** Runs one py (or js) cell through the eval tool. */
export function evalCell(client: Client, code: string, extra: Record<string, unknown> = {}, language = 'py') {
  return client.callTool({
    name: 'eval',
    arguments: { cells: [{ language, code }], ...extra },
  }) as Promise<CallToolResult>;
}

export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Live processes whose command line contains `needle`. */
export function processesMatching(needle: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0/g, ' ');
      const state = readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]?.[0];
      if (state !== 'Z' && cmdline.includes(needle)) found.push(Number(entry));
    } catch {
      // gone
    }
  }
  return found;
}

/** The parent of a process, if it still exists. */
function parentOf(pid: number): number | undefined {
  try {
    return Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ')[1]);
  } catch {
    return undefined;
  }
}

/** The host guards (`/bin/sh -c GUARD_SCRIPT`) that the process `hostPid` started and that live. */
export function hostGuards(hostPid: number): number[] {
  return processesMatching(GUARD_SCRIPT).filter((pid) => parentOf(pid) === hostPid);
}

/** Whether `pid` is a live host guard still (not ended, not a zombie, not a pid used again). */
export function isHostGuard(pid: number): boolean {
  return processesMatching(GUARD_SCRIPT).includes(pid);
}
