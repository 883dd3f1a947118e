/**
 * Follow an agent (issue 41): a real `omp-eval mcp` over stdio driven by the MCP SDK's client,
 * `omp-eval attach --list`, and `omp-eval attach` in a real pseudo-terminal showing the agent's
 * calls as they run.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.js';
import { deadlineIn } from '../helpers/kernel.js';
import {
  evalCell,
  httpClient,
  type StdioServer,
  startHttp,
  startStdio,
  stopAll,
  stopHttpServers,
  textOf,
} from '../helpers/mcp.js';
import { openNotebook, type Screen } from '../helpers/pty.js';

const runtime = mkdtempSync(join(tmpdir(), 'omp-attach-rt-'));
const workspace = mkdtempSync(join(tmpdir(), 'omp-attach-ws-'));
const env = { XDG_RUNTIME_DIR: runtime };

let server: StdioServer;
beforeAll(async () => {
  server = await startStdio({
    args: ['--python', '/usr/bin/python3', 'mcp'],
    env,
    cwd: workspace,
  });
});
afterAll(async () => {
  await stopAll();
  await stopHttpServers();
});

const open: Screen[] = [];
afterEach(() => {
  for (const s of open.splice(0)) s.kill();
});

function attach(args: string[] = []): Screen {
  const screen = openNotebook(['attach', ...args], { env, rows: 40, columns: 100 });
  open.push(screen);
  return screen;
}

/** `attach --list` once the server has published its session. */
async function listed(): Promise<string> {
  const until = deadlineIn(30_000);
  for (;;) {
    const run = await cli(['attach', '--list'], { env });
    if (run.stdout.includes('omp-eval-tests')) return run.stdout;
    if (Date.now() > until) throw new Error(`no session listed: ${run.stdout}${run.stderr}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('omp-eval attach: following an agent', { timeout: 120_000 }, () => {
  it('says so when no server runs', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'omp-attach-none-'));
    const list = await cli(['attach', '--list'], { env: { XDG_RUNTIME_DIR: empty } });
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/No omp-eval mcp server of yours is running/);
    const one = await cli(['attach'], { env: { XDG_RUNTIME_DIR: empty } });
    expect(one.code).toBe(1);
    expect(one.stderr).toMatch(/no omp-eval mcp server of yours is running/);
  });

  it('lists the session, shows its history and its calls live with a 10-line preview, runs the person’s cells, interrupts, and detaches', async () => {
    // A call before the attach: it is the history the notebook shows first.
    const before = (await server.client.callTool({
      name: 'eval',
      arguments: {
        cells: [
          { language: 'py', title: 'first lines', code: 'for i in range(30): print(f"early {i}")' },
          { language: 'py', code: 'x = 41' },
        ],
      },
    })) as CallToolResult;
    expect(textOf(before)).toContain('early 29');

    const list = await listed();
    const [header, row] = list.trim().split('\n');
    expect(header).toMatch(/SESSION\s+NAME\s+CLIENT\s+LANGUAGES\s+CELLS\s+IDLE\s+DIRECTORY/);
    expect(row).toMatch(
      new RegExp(`^\\d+/1\\s+default\\s+omp-eval-tests\\s+py\\s+2\\s+\\d+ s\\s+${workspace}$`),
    );

    const s = attach();
    // The history: the agent's cells, titled, with their status and the collapsed 10-line preview.
    await s.waitFor((t) => /✓ \[2\] agent #1 2\/2 ok/.test(t), 'the history');
    let screen = s.all();
    expect(screen).toMatch(/✓ \[1\] agent #1 1\/2 first lines ok/);
    expect(screen).toMatch(/✓ \[2\] agent #1 2\/2 ok/);
    expect(screen).toContain('early 0');
    expect(screen).toContain('early 2');
    expect(screen).not.toContain('early 3\n');
    expect(screen).toContain('… 20 more lines (ctrl+o shows them)');
    expect(screen).toContain('early 23');
    expect(screen).toContain('early 29');
    expect(screen).not.toContain('early 22');

    // A call while attached: its cell appears running, with its output live, then its end.
    const go = join(workspace, 'go');
    const call = server.client.callTool({
      name: 'eval',
      arguments: {
        cells: [
          {
            language: 'py',
            title: 'live lines',
            code: [
              'import os, time',
              'for i in range(25): print(f"live {i}", flush=True)',
              'while not os.path.exists("go"): time.sleep(0.02)',
              'x + 1',
            ].join('\n'),
          },
        ],
      },
    }) as Promise<CallToolResult>;
    screen = await s.waitFor(
      (t) => /agent #2 live lines running/.test(t) && t.includes('live 24'),
      'the live cell',
    );
    expect(screen).toMatch(/\[\*\] agent #2 live lines running/);
    writeFileSync(go, '');
    expect(textOf(await call)).toContain('42');
    await s.waitFor((t) => /✓ \[3\] agent #2 live lines ok/.test(t), 'the cell done');
    screen = s.all();
    expect(screen).toContain('live 2');
    expect(screen).toContain('… 16 more lines (ctrl+o shows them)');
    expect(screen).toContain('Out[3]: 42');

    // A cell the person types runs in the same kernel; the agent's next result says so first.
    await s.run('y = x + 59');
    await s.waitFor((t) => /✓ \[4\] ok/.test(t), "the person's cell");
    const next = textOf(await evalCell(server.client, 'y'));
    expect(next).toMatch(
      /^\[A person following this session \(omp-eval attach\) ran a Python cell in it before this call: `y = x \+ 59`; it ran ok\. It defined or changed y\./,
    );
    expect(next).toContain('100');
    await s.waitFor(
      (t) => /✓ \[5\] agent #4 ok/.test(t) && t.includes('Out[5]: 100'),
      "the agent's next call",
    );

    // Ctrl-C in the attached notebook interrupts the agent's running cell; its result says so.
    const long = evalCell(server.client, 'import time\nwhile True: time.sleep(0.05)');
    await s.waitFor((t) => /\[\*\] agent #5 running/.test(t), "the agent's long cell");
    s.write('\x03');
    const interrupted = textOf(await long);
    expect(interrupted).toMatch(/KeyboardInterrupt|interrupted/);
    expect(interrupted).toContain(
      'A person following this session (omp-eval attach) interrupted this cell with Ctrl-C.',
    );
    await s.waitFor((t) => /⊘ \[6\] agent #5 cancelled/.test(t), 'the cancelled cell');

    // Ctrl-D on the empty prompt detaches; the agent's session keeps working.
    s.write('\x04');
    await s.ended();
    expect(s.all()).toMatch(/detached; the agent's session \d+\/1 keeps running/);
    expect(textOf(await evalCell(server.client, 'x * 2'))).toContain('82');
  });

  it('follows a session of an HTTP server too', async () => {
    const own = mkdtempSync(join(tmpdir(), 'omp-attach-http-'));
    const http = await startHttp(['--python', '/usr/bin/python3'], { XDG_RUNTIME_DIR: own });
    const { client } = await httpClient(http);
    expect(textOf(await evalCell(client, 'print("over http")'))).toContain('over http');
    const list = await cli(['attach', '--list'], { env: { XDG_RUNTIME_DIR: own } });
    expect(list.stdout).toMatch(/\d+\/1\s+default\s+omp-eval-tests\s+py\s+1\s/);
    const s = openNotebook(['attach'], { env: { XDG_RUNTIME_DIR: own }, rows: 40, columns: 100 });
    open.push(s);
    await s.waitFor((t) => /✓ \[1\] agent #1 ok/.test(t) && t.includes('over http'), 'the HTTP session');
    s.write('\x04');
    await s.ended();
    await client.close();
  });

  it("follows the session across a restart the agent asks for: the notebook says so, and the person's next cell runs in the new kernel", async () => {
    const own = mkdtempSync(join(tmpdir(), 'omp-attach-restart-'));
    const agent = await startStdio({
      args: ['--python', '/usr/bin/python3', 'mcp'],
      env: { XDG_RUNTIME_DIR: own },
      cwd: workspace,
    });
    expect(textOf(await evalCell(agent.client, 'before = 1\nbefore'))).toContain('1');
    const s = openNotebook(['attach'], { env: { XDG_RUNTIME_DIR: own }, rows: 40, columns: 100 });
    open.push(s);
    await s.waitFor((t) => /✓ \[1\] agent #1 ok/.test(t), 'the history');
    const restarted = (await agent.client.callTool({ name: 'restart', arguments: {} })) as CallToolResult;
    expect(restarted.isError).toBeFalsy();
    // The notebook says so, and follows the agent's next call into the new kernel.
    await s.waitFor(
      (t) => t.includes('The agent restarted all the kernels of this session: their state is gone'),
      'the restart told',
    );
    expect(textOf(await evalCell(agent.client, "'before' in globals()"))).toContain('False');
    await s.waitFor(
      (t) => /✓ \[2\] agent #2 ok/.test(t) && t.includes('Out[2]: False'),
      "the agent's next call",
    );
    await s.run('after = 2');
    await s.waitFor((t) => /✓ \[3\] ok/.test(t), "the person's cell in the new kernel");
    expect(textOf(await evalCell(agent.client, 'after'))).toContain('2');
    // Ctrl-D while the agent's cell runs leaves the notebook; the agent's call goes on.
    const go = join(own, 'go');
    const long = evalCell(
      agent.client,
      `import os, time\nwhile not os.path.exists(${JSON.stringify(go)}): time.sleep(0.02)\nafter + 1`,
    );
    await s.waitFor((t) => /\[\*\] agent #\d+ running/.test(t), "the agent's long cell");
    s.write('\x04');
    await s.ended('the detach');
    expect(s.all()).toMatch(/detached; the agent's session \d+\/1 keeps running/);
    writeFileSync(go, '');
    expect(textOf(await long)).toContain('3');
  });

  it('ends the attached notebook with a message when the server ends', async () => {
    await listed();
    const s = attach();
    await s.waitFor((t) => t.includes('following omp-eval-tests'), 'the attached notebook');
    await stopAll();
    await s.ended();
    const screen = s.all();
    expect(screen).toMatch(/the agent's MCP connection ended[\s\S]*; the\s+notebook\s+ended\./);
    // What came before the end was shown first.
    expect(screen).toMatch(/✓ \[\d+\] agent #2 live lines ok/);
  });
});
