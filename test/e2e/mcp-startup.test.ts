/**
 * How `omp-eval mcp` over stdio starts (issue 45): it loads nothing of the HTTP server (the SDK's
 * HTTP transport loads Node's fetch, undici), the SDK and zod come from the CLI's bundle (some 140
 * ES modules otherwise), and it spawns its first Python kernel's process as it starts, before any
 * request, as `run` and `tool` do; the first eval call runs in that process.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it, onTestFinished } from 'vitest';
import { BIN } from '../helpers/cli.js';
import { waitFor } from '../helpers/kernel.js';

/** Prints, as the process ends, the internal modules of Node's fetch it loaded (moduleLoadList). */
const HOOK = `data:text/javascript,${encodeURIComponent(`
process.on('exit', () => {
  const undici = process.moduleLoadList.filter((m) => m.includes('undici'));
  process.stderr.write('\\nundici: ' + JSON.stringify(undici) + '\\n');
});
`)}`;

/** Prints each ES module the process loads from node_modules (a loader hook, on its own thread). */
const ESM_HOOK = `data:text/javascript,${encodeURIComponent(`
import { register } from 'node:module';
register('data:text/javascript,' + encodeURIComponent(\`
export async function load(url, context, next) {
  if (url.includes('/node_modules/')) process._rawDebug('esm: ' + url);
  return next(url, context);
}\`));
`)}`;

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'startup-test', version: '1' },
  },
};

/** `omp-eval [args]` with stdio piped; its stdout's JSON-RPC messages, and its stderr. */
function server(args: string[], nodeArgs: string[] = []) {
  const child = spawn(process.execPath, [...nodeArgs, BIN, ...args], { stdio: 'pipe' });
  onTestFinished(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  const messages: { id?: number; result?: { content?: { text?: string }[] } }[] = [];
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    stdout += d;
    const lines = stdout.split('\n');
    stdout = lines.pop() as string;
    for (const line of lines) if (line.trim()) messages.push(JSON.parse(line));
  });
  child.stderr.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const send = (message: object) => child.stdin.write(`${JSON.stringify(message)}\n`);
  return { child, messages, stderr: () => stderr, exited, send };
}

/** The pids of the processes whose parent is `pid`, with their command lines. */
function childrenOf(pid: number): { pid: number; cmdline: string }[] {
  const found: { pid: number; cmdline: string }[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid !== pid) continue;
      found.push({
        pid: Number(name),
        cmdline: readFileSync(`/proc/${name}/cmdline`, 'utf8').replaceAll('\0', ' '),
      });
    } catch {
      // (gone meanwhile)
    }
  }
  return found;
}

describe('omp-eval mcp over stdio, starting', { timeout: 120_000 }, () => {
  it('answers initialize without loading undici', async () => {
    const s = server(['--python', '/usr/bin/python3', 'mcp', '--sandbox', 'off'], ['--import', HOOK]);
    s.send(INITIALIZE);
    await waitFor(() => s.messages.some((m) => m.id === 1), 60_000, 'the answer to initialize');
    s.child.stdin.end();
    expect(await s.exited).toBe(0);
    const line = s
      .stderr()
      .split('\n')
      .find((l) => l.startsWith('undici: '));
    expect(line, `no report; stderr: ${s.stderr()}`).toBeDefined();
    expect(JSON.parse((line as string).slice('undici: '.length))).toEqual([]);
  });

  it('answers initialize with the MCP SDK and zod from its bundle, not as modules of node_modules', async () => {
    const s = server(['--python', '/usr/bin/python3', 'mcp', '--sandbox', 'off'], ['--import', ESM_HOOK]);
    s.send(INITIALIZE);
    await waitFor(() => s.messages.some((m) => m.id === 1), 60_000, 'the answer to initialize');
    s.child.stdin.end();
    expect(await s.exited).toBe(0);
    const loaded = s
      .stderr()
      .split('\n')
      .filter((l) => l.startsWith('esm: '));
    expect(
      loaded.filter((l) => /node_modules\/(zod|zod-to-json-schema|@modelcontextprotocol)\//.test(l)),
    ).toEqual([]);
  });

  it('spawns the Python kernel before any request, and the first eval runs in it', async () => {
    const s = server(['--python', '/usr/bin/python3', 'mcp', '--sandbox', 'off']);
    const pid = s.child.pid as number;
    let kernel: number | undefined;
    // Nothing is sent yet: a Python process under the server is the early kernel.
    await waitFor(
      () => {
        kernel = childrenOf(pid).find((c) => /python.* -u .*runner\.py/.test(c.cmdline))?.pid;
        return kernel !== undefined;
      },
      60_000,
      'a python process under the server before any request',
    );
    s.send(INITIALIZE);
    s.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    s.send({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'eval', arguments: { cells: [{ language: 'py', code: 'import os\nos.getpid()' }] } },
    });
    await waitFor(() => s.messages.some((m) => m.id === 2), 60_000, 'the eval answer');
    const answer = s.messages.find((m) => m.id === 2);
    expect(answer?.result?.content?.[0]?.text).toBe(String(kernel));
    s.child.stdin.end();
    expect(await s.exited).toBe(0);
  });
});
