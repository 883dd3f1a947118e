/**
 * Long cells as MCP Tasks (issue 42): an eval call with a `task` field is answered at once with a
 * task while the cell runs; tasks/get says what runs, tasks/result gives the result, tasks/cancel
 * interrupts the cell and the session keeps its state. In process: the SDK's client over its
 * in-memory transport, real kernels.
 */
import { mkdtemp, realpath, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import {
  CallToolResultSchema,
  CreateTaskResultSchema,
  type JSONRPCMessage,
  LATEST_PROTOCOL_VERSION,
} from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS } from '../../src/eval/settings.js';
import { McpConnection } from '../../src/modes/mcp/connection.js';
import { DEFAULT_TASK_TTL_MS, MAX_TASK_TTL_MS, MIN_TASK_TTL_MS, taskTtl } from '../../src/modes/mcp/tasks.js';
import { textOf } from '../helpers/mcp.js';

const open: { close: () => Promise<void> }[] = [];
afterEach(async () => {
  for (const it of open.splice(0)) await it.close();
});

function newConnection(cwd: string) {
  const connection = new McpConnection({
    settings: { ...DEFAULT_SETTINGS, 'sandbox.mode': 'off', 'python.interpreter': '/usr/bin/python3' },
    cwd,
  });
  open.push({ close: () => connection.close() });
  return connection;
}

async function connect() {
  const cwd = await realpath(await mkdtemp(join(tmpdir(), 'omp-mcp-tasks-')));
  const connection = newConnection(cwd);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await connection.server.connect(serverSide);
  const client = new Client({ name: 'mcp-tasks-test', version: '1' });
  await client.connect(clientSide);
  open.unshift({ close: () => client.close() });
  return { client, cwd };
}

/** Starts eval of `code` as a task; resolves with the task as the server answered it. */
async function evalTask(client: Client, code: string, ttl = 60_000) {
  const { task } = await client.request(
    {
      method: 'tools/call',
      params: { name: 'eval', arguments: { cells: [{ language: 'py', code }] }, task: { ttl } },
    },
    CreateTaskResultSchema,
  );
  return task;
}

/** Asks for the task's status until its message matches `pattern`. */
async function statusMatching(client: Client, taskId: string, pattern: RegExp) {
  for (;;) {
    const task = await client.experimental.tasks.getTask(taskId);
    if (pattern.test(task.statusMessage ?? '')) return task;
    expect(task.status).toBe('working');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('eval as an MCP task', { timeout: 180_000 }, () => {
  it('offers eval (only) as a task, to a client of 2025-11-25', async () => {
    const { client } = await connect();
    expect(client.getServerCapabilities()?.tasks?.requests?.tools?.call).toBeDefined();
    const { tools } = await client.listTools();
    const execution = Object.fromEntries(tools.map((t) => [t.name, t.execution?.taskSupport]));
    expect(execution).toEqual({ eval: 'optional', restart: undefined, variables: undefined });
    await expect(
      client.request(
        { method: 'tools/call', params: { name: 'variables', arguments: {}, task: {} } },
        CreateTaskResultSchema,
      ),
    ).rejects.toThrow(/Only eval runs as a task/);
  });

  it('answers at once, tells which cell runs, and keeps the result for tasks/result', async () => {
    const { client, cwd } = await connect();
    const flag = join(cwd, 'go');
    const task = await evalTask(
      client,
      `import os, time\nprint('waiting')\nwhile not os.path.exists(${JSON.stringify(flag)}): time.sleep(0.02)\nanswer = 42\nanswer`,
    );
    expect(task.status).toBe('working');
    expect(task.ttl).toBe(60_000);
    // The call was answered while its cell still waits for the flag: the status says it runs.
    const running = await statusMatching(client, task.taskId, /output: waiting/);
    expect(running.status).toBe('working');
    const listed = await client.experimental.tasks.listTasks();
    expect(listed.tasks.map((t) => t.taskId)).toContain(task.taskId);
    await writeFile(flag, '');
    const result = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    expect(result.isError).toBe(false);
    expect(textOf(result)).toContain('waiting');
    expect(textOf(result)).toContain('42');
    expect((await client.experimental.tasks.getTask(task.taskId)).status).toBe('completed');
    // A task's call is a call of the session like any other: its names stay.
    const next = await client.callTool({
      name: 'eval',
      arguments: { cells: [{ language: 'py', code: 'answer + 1' }] },
    });
    expect(textOf(next)).toContain('43');
  });

  it('interrupts the cell on tasks/cancel; the session keeps its state and says what happened', async () => {
    const { client } = await connect();
    const setup = await client.callTool({
      name: 'eval',
      arguments: { cells: [{ language: 'py', code: 'kept = "still here"' }] },
    });
    expect(setup.isError).toBe(false);
    const task = await evalTask(client, "print('looping', flush=True)\nwhile True: pass");
    await statusMatching(client, task.taskId, /output: looping/);
    const cancelled = await client.experimental.tasks.cancelTask(task.taskId);
    expect(cancelled.status).toBe('cancelled');
    // The next call waits for the interrupted one to end, then runs in the same kernel.
    const next = await client.callTool({
      name: 'eval',
      arguments: { cells: [{ language: 'py', code: 'kept' }] },
    });
    expect(next.isError).toBe(false);
    expect(textOf(next)).toContain('still here');
    expect(textOf(next)).toMatch(/cancel/i);
    expect((await client.experimental.tasks.getTask(task.taskId)).status).toBe('cancelled');
  });

  it('keeps a result an hour when the client asks no time, a minute at least, a day at most', () => {
    expect(taskTtl(undefined)).toBe(DEFAULT_TASK_TTL_MS);
    expect(taskTtl(null)).toBe(DEFAULT_TASK_TTL_MS);
    expect(taskTtl(0)).toBe(DEFAULT_TASK_TTL_MS);
    expect(taskTtl(5000)).toBe(MIN_TASK_TTL_MS);
    expect(taskTtl(120_000)).toBe(120_000);
    expect(taskTtl(10 * MAX_TASK_TTL_MS)).toBe(MAX_TASK_TTL_MS);
  });

  it('gives a client of an earlier revision no tasks: eval has no execution field, a task is refused', async () => {
    const cwd = await realpath(await mkdtemp(join(tmpdir(), 'omp-mcp-tasks-')));
    const connection = newConnection(cwd);
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await connection.server.connect(serverSide);
    const answers = new Map<number, JSONRPCMessage>();
    clientSide.onmessage = (message) => {
      if ('id' in message && typeof message.id === 'number') answers.set(message.id, message);
    };
    await clientSide.start();
    const ask = async (id: number, method: string, params: Record<string, unknown>) => {
      await clientSide.send({ jsonrpc: '2.0', id, method, params });
      while (!answers.has(id)) await new Promise((resolve) => setTimeout(resolve, 10));
      return answers.get(id) as { result?: Record<string, unknown>; error?: { message: string } };
    };
    expect(LATEST_PROTOCOL_VERSION > '2025-06-18').toBe(true);
    const init = await ask(1, 'initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'old', version: '1' },
    });
    expect(init.result?.protocolVersion).toBe('2025-06-18');
    await clientSide.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    const listed = await ask(2, 'tools/list', {});
    const tools = (listed.result?.tools ?? []) as { name: string; execution?: unknown }[];
    expect(tools.find((t) => t.name === 'eval')).toBeDefined();
    expect(tools.every((t) => t.execution === undefined)).toBe(true);
    const refused = await ask(3, 'tools/call', {
      name: 'eval',
      arguments: { cells: [{ language: 'py', code: '1' }] },
      task: {},
    });
    expect(refused.error?.message).toMatch(/Tasks are not part of MCP 2025-06-18/);
    await clientSide.close();
  });
});
