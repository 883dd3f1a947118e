/**
 * `omp-eval mcp` with what surrounds it: sampling for completion(), the settings shared with the
 * other commands, --print-config, and the MCP Inspector's CLI as a client written by others.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, realpath, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CreateMessageRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.js';
import { evalCell, startStdio, stopAll, textOf } from '../helpers/mcp.js';

afterEach(stopAll);

const FAKE_AGENT = fileURLToPath(new URL('../fixtures/fake-agent.py', import.meta.url));
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

describe('completion() through MCP sampling', { timeout: 60_000 }, () => {
  it('asks the client with sampling/createMessage when no completion command is configured', async () => {
    const requests: unknown[] = [];
    const server = await startStdio({ capabilities: { sampling: {} } });
    server.client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
      requests.push(request.params);
      const prompt = request.params.messages[0]?.content;
      const text = prompt && 'text' in prompt ? prompt.text : '';
      return {
        role: 'assistant',
        model: 'test-model',
        content: { type: 'text', text: `{"echo": "${text}"}` },
      };
    });
    const result = await evalCell(
      server.client,
      'answer = completion("hello", system="be brief", model="small", schema={"type": "object", "required": ["echo"]})\nanswer["echo"]',
    );
    expect(textOf(result)).toBe("[completion finished]\n'hello'");
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({
      messages: [{ role: 'user', content: { type: 'text', text: 'hello' } }],
      modelPreferences: { hints: [{ name: 'small' }] },
      includeContext: 'none',
    });
    expect((requests[0] as { systemPrompt: string }).systemPrompt).toMatch(
      /^be brief\n\nAnswer with one JSON value/,
    );
  });

  it('fails with a clear message when the client cannot sample', async () => {
    const { client } = await startStdio();
    const result = await evalCell(client, 'completion("hello")');
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(
      /this MCP client does not support sampling .* Start omp-eval mcp with --completion-command CMD/,
    );
  });

  it('uses a configured --completion-command even when the client can sample', async () => {
    const server = await startStdio({
      args: ['--completion-command', `python3 ${FAKE_AGENT}`, 'mcp'],
      capabilities: { sampling: {} },
    });
    server.client.setRequestHandler(CreateMessageRequestSchema, () => {
      throw new Error('sampling must not be used');
    });
    expect(textOf(await evalCell(server.client, 'completion("abc")'))).toBe(
      "[completion finished]\n'completion:cba'",
    );
  });
});

describe("eval as an MCP task over stdio (the SDK client's callToolStream)", { timeout: 120_000 }, () => {
  it('creates the task, reports it working, and ends with the result', async () => {
    const { client } = await startStdio();
    const kinds: string[] = [];
    let text = '';
    for await (const message of client.experimental.tasks.callToolStream(
      { name: 'eval', arguments: { cells: [{ language: 'py', code: 'print("from a task")\n6 * 7' }] } },
      undefined,
      { task: { ttl: 60_000 } },
    )) {
      kinds.push(message.type);
      if (message.type === 'result') text = textOf(message.result);
      if (message.type === 'error') throw message.error;
    }
    expect(kinds[0]).toBe('taskCreated');
    expect(kinds.at(-1)).toBe('result');
    expect(text).toContain('from a task');
    expect(text).toContain('42');
  });
});

describe('the settings of the other commands', { timeout: 60_000 }, () => {
  it('takes --cwd, --timeout, --pass-env and the config file', async () => {
    const dir = await realpath(await mkdtemp(join(tmpdir(), 'omp-mcp-cwd-')));
    const config = join(dir, 'config.json');
    await writeFile(config, JSON.stringify({ python: { interpreter: '/usr/bin/python3' } }));
    const { client } = await startStdio({
      args: ['--cwd', dir, '--timeout', '1', '--pass-env', 'OMP_TEST_SECRET_TOKEN', 'mcp'],
      env: { OMP_EVAL_CONFIG: config, OMP_TEST_SECRET_TOKEN: 'kept' },
    });
    const where = await evalCell(
      client,
      'import os, sys\nos.getcwd(), sys.executable, os.environ.get("OMP_TEST_SECRET_TOKEN")',
    );
    expect(textOf(where)).toBe(`('${dir}', '/usr/bin/python3', 'kept')`);
    const { tools } = await client.listTools();
    expect(tools[0]?.description).toMatch(/each cell has a timeout \(1 s unless the cell sets "timeout"/);
    const slow = await evalCell(client, 'while True: pass');
    expect(textOf(slow)).toMatch(/timed out after 1s/);
  });

  it("takes --agent-command: a cell's agent() runs it", async () => {
    const { client } = await startStdio({
      args: [
        '--agent-command',
        `${JSON.stringify(process.execPath)} -e "process.stdin.pipe(process.stdout)"`,
        'mcp',
      ],
    });
    const answer = await evalCell(client, 'import json\njson.loads(agent("from the agent"))["prompt"]');
    expect(textOf(answer)).toMatch(/'from the agent'$/);
  });

  it('runs a fresh kernel per call in per-call mode, and says restart has nothing to do', async () => {
    const { client } = await startStdio({ args: ['--kernel-mode', 'per-call', 'mcp'] });
    const { tools } = await client.listTools();
    expect(tools[0]?.description).toMatch(/What persists: nothing between calls/);
    await evalCell(client, 'x = 1');
    expect(textOf(await evalCell(client, '"x" in globals()'))).toBe('False');
    expect(textOf(await client.callTool({ name: 'restart', arguments: {} }))).toMatch(/per-call mode/);
    expect(textOf(await client.callTool({ name: 'variables', arguments: {} }))).toMatch(/per-call mode/);
  });

  it('reports bad settings before serving', async () => {
    const missing = await cli(['--cwd', '/no/such/dir', 'mcp']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/omp-eval mcp: Working directory does not exist: \/no\/such\/dir/);
    const dir = await mkdtemp(join(tmpdir(), 'omp-mcp-cfg-'));
    await writeFile(join(dir, 'c.json'), '{"eval": {"timeout": "soon"}}');
    const bad = await cli(['mcp'], { env: { OMP_EVAL_CONFIG: join(dir, 'c.json') } });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/setting "eval.timeout" in .*c\.json must be a number of seconds/);
  });
});

describe('--print-config', () => {
  it('prints a working stdio configuration for each client and writes nothing', async () => {
    const home = await mkdtemp(join(tmpdir(), 'omp-mcp-home-'));
    const env = { HOME: home, XDG_CONFIG_HOME: join(home, '.config') };
    const claude = await cli(['--python', '/usr/bin/python3', 'mcp', '--print-config', 'claude'], { env });
    expect(claude.code).toBe(0);
    const entry = JSON.parse(claude.stdout).mcpServers['omp-eval'];
    expect(entry).toMatchObject({ type: 'stdio', command: process.execPath });
    expect(entry.args.slice(1)).toEqual(['--python', '/usr/bin/python3', 'mcp']);
    expect(claude.stderr).toMatch(/\.mcp\.json.*claude mcp add omp-eval -- /);
    // The snippet starts a server a client can use.
    const client = new Client({ name: 'config-check', version: '1' });
    await client.connect(new StdioClientTransport({ command: entry.command, args: entry.args }));
    expect(textOf(await evalCell(client, 'import sys; sys.executable'))).toBe("'/usr/bin/python3'");
    await client.close();

    const codex = await cli(['mcp', '--print-config', 'codex'], { env });
    expect(codex.stdout).toMatch(
      /^\[mcp_servers\."omp-eval"\]\ncommand = ".*node.*"\nargs = \[".*omp-eval\.js", "--cwd", "\/[^"]*", "mcp"\]/,
    );
    // (Codex offers no roots: the folder --print-config ran in, absolute, is its workspace)
    expect(codex.stderr).toMatch(/Codex offers no MCP roots: the kernels work in \//);
    expect(codex.stdout).toMatch(/tool_timeout_sec = 3700/);
    const cursor = JSON.parse((await cli(['mcp', '--print-config', 'cursor'], { env })).stdout);
    expect(cursor.mcpServers['omp-eval'].args.at(-1)).toBe('mcp');
    const gemini = JSON.parse((await cli(['mcp', '--print-config', 'gemini'], { env })).stdout);
    expect(gemini.mcpServers['omp-eval']).toMatchObject({ timeout: 3_700_000 });

    const http = await cli(['mcp', '--http', '127.0.0.1:8765', '--print-config', 'claude'], { env });
    expect(JSON.parse(http.stdout).mcpServers['omp-eval']).toEqual({
      type: 'http',
      url: 'http://127.0.0.1:8765/mcp',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the client expands it
      headers: { Authorization: 'Bearer ${OMP_EVAL_MCP_TOKEN}' },
    });
    const unknown = await cli(['mcp', '--print-config', 'vim']);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toMatch(
      /Allowed choices are claude, claude-desktop, codex, cursor, gemini, vscode/,
    );
    const { readdir } = await import('node:fs/promises');
    expect(await readdir(home)).toEqual([]);
  }, 60_000);
});

/**
 * The Inspector 1.0.3 declares Node 22.7.5 or newer (its CLI runs on Node 20 too): it is not a
 * devDependency, whose engine warning every `npm install` on Node 20 printed, but installed here
 * into a temp folder (the npm registry must be reachable), unless OMP_EVAL_TEST_MCP_INSPECTOR
 * names a folder where it is installed already.
 */
async function installInspector(): Promise<string> {
  const installed = process.env.OMP_EVAL_TEST_MCP_INSPECTOR;
  const prefix = installed ?? (await mkdtemp(join(tmpdir(), 'omp-mcp-inspector-')));
  if (!installed) {
    const args = ['install', '--prefix', prefix, '--no-audit', '--no-fund', '--ignore-scripts'];
    const npm = spawn('npm', [...args, '--loglevel=error', '@modelcontextprotocol/inspector@1.0.3'], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    npm.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
    });
    const code = await new Promise<number | null>((resolve) => npm.on('close', resolve));
    if (code !== 0) throw new Error(`npm could not install the Inspector (exit ${code}): ${stderr}`);
  }
  return join(prefix, 'node_modules/@modelcontextprotocol/inspector/cli/build/cli.js');
}

describe('the MCP Inspector CLI', { timeout: 300_000 }, () => {
  it('lists the tools and runs a cell', async () => {
    const cliPath = await installInspector();
    const inspector = (args: string[]) =>
      new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
        const child = spawn(
          process.execPath,
          [cliPath, '--cli', process.execPath, 'bin/omp-eval.js', 'mcp', ...args],
          { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
        );
        let stdout = '';
        let stderr = '';
        child.stdout.setEncoding('utf8').on('data', (d: string) => {
          stdout += d;
        });
        child.stderr.setEncoding('utf8').on('data', (d: string) => {
          stderr += d;
        });
        child.on('close', (code) => resolve({ code, stdout, stderr }));
      });
    const listed = await inspector(['--method', 'tools/list']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout).tools.map((t: { name: string }) => t.name)).toEqual([
      'eval',
      'restart',
      'variables',
    ]);
    const called = await inspector([
      '--method',
      'tools/call',
      '--tool-name',
      'eval',
      '--tool-arg',
      'cells=[{"language": "py", "code": "6 * 7"}, {"language": "js", "code": "[1, 2].length"}]',
    ]);
    expect(called.code, called.stderr).toBe(0);
    const result = JSON.parse(called.stdout);
    expect(result.isError).toBe(false);
    expect(result.content[0].text).toBe('[1/2]\n42\n\n[2/2]\n2');
    expect(result.structuredContent.cells.map((c: { status: string }) => c.status)).toEqual(['ok', 'ok']);
  });
});
