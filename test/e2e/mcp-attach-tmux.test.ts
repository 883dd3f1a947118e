/**
 * Follow an agent (issue 41) in tmux: `omp-eval attach` in Debian's tmux, following a real
 * `omp-eval mcp` that the MCP SDK's client drives over stdio. tmux is a terminal of its own (its
 * keys, its redraws, its scroll-back), as many people who watch an agent run it.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { evalCell, startStdio, stopAll, textOf } from '../helpers/mcp.js';
import { openTmux } from '../helpers/tmux.js';

const runtime = mkdtempSync(join(tmpdir(), 'omp-attach-tmux-rt-'));
const workspace = mkdtempSync(join(tmpdir(), 'omp-attach-tmux-ws-'));
const env = { XDG_RUNTIME_DIR: runtime };

let open: ReturnType<typeof openTmux> | undefined;
afterEach(() => {
  open?.close();
  open = undefined;
});
afterAll(stopAll);

describe('omp-eval attach in tmux', { timeout: 120_000 }, () => {
  it("shows the agent's calls with their 10-line preview, runs the person's cell for the agent, interrupts its cell, and detaches", async () => {
    const server = await startStdio({ args: ['--python', '/usr/bin/python3', 'mcp'], env, cwd: workspace });
    const first = (await server.client.callTool({
      name: 'eval',
      arguments: {
        cells: [{ language: 'py', title: 'count', code: 'x = 41\nfor i in range(30): print(f"line {i}")' }],
      },
    })) as CallToolResult;
    expect(textOf(first)).toContain('line 29');

    const t = openTmux(100, 40, { args: ['attach'], env });
    open = t;
    // The call before the attach, titled, ended, collapsed to 10 lines (3 and 7).
    let screen = await t.waitFor(
      (s) => /✓ \[1\] agent #1 count ok/.test(s) && s.includes('following omp-eval-tests'),
      'the history and the status line',
    );
    const all = t.all();
    expect(all).toContain('line 2');
    expect(all).not.toMatch(/line 3$/m);
    expect(all).toContain('… 20 more lines (ctrl+o shows them)');
    expect(all).toContain('line 23');
    expect(all).not.toMatch(/line 22$/m);
    expect(screen).toContain('following omp-eval-tests');

    // The person's cell, typed in tmux, runs in the agent's kernel; the agent's next result says so.
    t.keys('-l', 'y = x + 1');
    await t.waitFor((s) => s.includes('y = x + 1'), 'the typed cell');
    t.keys('Enter');
    await t.waitFor((s) => /✓ \[2\] ok/.test(s), "the person's cell");
    const next = textOf(await evalCell(server.client, 'y'));
    expect(next).toMatch(/^\[A person following this session \(omp-eval attach\) ran a Python cell in it/);
    expect(next).toContain('It defined or changed y.');
    expect(next).toContain('42');
    await t.waitFor((s) => /✓ \[3\] agent #3 ok/.test(s) && s.includes('Out[3]: 42'), "the agent's call");

    // Ctrl-C through tmux interrupts the agent's running cell; its result names the person.
    const long = evalCell(server.client, 'import time\nwhile True: time.sleep(0.05)');
    await t.waitFor((s) => /\[\*\] agent #4 running/.test(s), "the agent's long cell");
    t.keys('C-c');
    const interrupted = textOf(await long);
    expect(interrupted).toContain(
      'A person following this session (omp-eval attach) interrupted this cell with Ctrl-C.',
    );
    await t.waitFor((s) => /⊘ \[4\] agent #4 cancelled/.test(s), 'the cancelled cell');

    // Ctrl-D leaves; the agent's session and its state go on.
    t.keys('C-d');
    screen = await t.waitFor(
      (s) => /detached; the agent's session \d+\/1 keeps running/.test(s),
      'the detach',
    );
    expect(screen).not.toContain('omp-eval attach: error');
    await t.waitFor(() => t.ended(), 'omp-eval attach to end');
    expect(textOf(await evalCell(server.client, 'y * 2'))).toContain('84');
  });
});
