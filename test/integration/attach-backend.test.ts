/**
 * Following an agent's session (src/modes/share/attachBackend.ts, attach.ts) in process: a real
 * MCP connection with real kernels publishes its session on a real share socket; the notebook's
 * backend for `omp-eval attach` follows it: the agent's calls (history, then live) replayed, the
 * person's cells run in the agent's kernel, Ctrl-C, the session's end. And `attach --list`.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { CellResult, OutputEvent } from '../../src/eval/index.js';
import { runAttach } from '../../src/modes/share/attach.js';
import { ATTACH_HISTORY, attachedBackend } from '../../src/modes/share/attachBackend.js';
import { discover, pickSession, ShareConnection } from '../../src/modes/share/client.js';
import { type Publisher, publishSessions } from '../../src/modes/share/publisher.js';
import type { AgentCell } from '../../src/tui/backend.js';
import type { NotebookKernelState } from '../../src/tui/state/reducer.js';
import { waitFor } from '../helpers/kernel.js';
import { evalCell, textOf } from '../helpers/mcp.js';
import { connectInProcess } from '../helpers/mcpConnection.js';
import { outputStreams } from '../helpers/streams.js';

const publishers: Publisher[] = [];
const connections: ShareConnection[] = [];
afterEach(async () => {
  for (const c of connections.splice(0)) c.close();
  await Promise.all(publishers.splice(0).map((p) => p.close('test over')));
});

/** An agent's MCP connection, its sessions published in a share directory of its own. */
async function agent() {
  const env = { XDG_RUNTIME_DIR: mkdtempSync(join(tmpdir(), 'omp-attach-rt-')) };
  publishers.push(await publishSessions({ env }));
  const mcp = await connectInProcess({ name: 'agent-x' });
  return { ...mcp, env };
}

/** The backend following the only session published in `env`'s share directory. */
async function follow(env: NodeJS.ProcessEnv) {
  const found = await discover(env);
  const picked = pickSession(found.servers, undefined);
  if ('problem' in picked) throw new Error(picked.problem);
  const connection = await ShareConnection.open(picked.server.path, found.secret as string);
  connections.push(connection);
  connection.send({ t: 'subscribe', session: picked.session.id, history: ATTACH_HISTORY });
  await connection.next(['subscribed']);
  const backend = attachedBackend(connection, picked.session);
  const batches: AgentCell[][] = [];
  backend.onAgentCells?.((cells) => batches.push(cells));
  const states: NotebookKernelState[] = [];
  backend.onKernelState((state) => states.push(state));
  return { backend, batches, states, session: picked.session };
}

/** Runs (or replays) a cell through the backend, keeping its events. */
function cell(
  backend: Awaited<ReturnType<typeof follow>>['backend'],
  run: { code: string; party?: AgentCell['party'] },
) {
  const events: OutputEvent[] = [];
  const result: Promise<CellResult> = backend.runCell({ ...run, onEvent: (e) => events.push(e) });
  const text = () =>
    events.flatMap((e) => (e.kind === 'stdout' || e.kind === 'result' ? [e.text] : [])).join('');
  return { events, result, text };
}

describe('attach: the backend following an agent', { timeout: 120_000 }, () => {
  it("replays the agent's earlier and live calls, and runs the person's cells in its kernel", async () => {
    const { client, cwd, env } = await agent();
    expect(textOf(await evalCell(client, 'answer = 41\nprint("before")'))).toBe('before');
    const { backend, batches, states, session } = await follow(env);
    expect(backend.mode).toBe(`following agent-x's session default (${session.id})`);
    expect(backend.cwd).toBe(cwd);
    // The earlier call: its cells, then its output as the notebook replays it.
    await waitFor(() => batches.length === 1, 30_000, 'the history');
    expect(batches[0]).toEqual([
      {
        code: 'answer = 41\nprint("before")',
        language: 'py',
        party: { by: 'agent', client: 'agent-x', call: 1, cell: 0, cells: 1 },
      },
    ]);
    const history = cell(backend, batches[0]?.[0] as AgentCell);
    expect((await history.result).status).toBe('ok');
    expect(history.text()).toBe('before\n');
    expect(backend.kernelState()).toBe('idle');

    // A live call: the notebook sees it start, its output as it comes, and its end.
    const flag = join(cwd, 'go');
    const live = evalCell(
      client,
      `import os, time\nprint("waiting", flush=True)\nwhile not os.path.exists(${JSON.stringify(flag)}): time.sleep(0.02)\nanswer += 1`,
    );
    await waitFor(() => batches.length === 2, 30_000, 'the live call');
    expect(states).toContain('busy');
    const replay = cell(backend, batches[1]?.[0] as AgentCell);
    await waitFor(() => replay.text().includes('waiting'), 30_000, 'the live output');
    writeFileSync(flag, '');
    expect((await replay.result).status).toBe('ok');
    expect(((await live) as CallToolResult).isError).toBe(false);
    await waitFor(() => backend.kernelState() === 'idle', 30_000, 'the call to end');

    // The person's cell runs in the agent's kernel, with its state.
    const typed = cell(backend, { code: 'print(answer * 2)' });
    expect((await typed.result).status).toBe('ok');
    expect(typed.text()).toBe('84\n');
    // ... and the agent sees what the person defined.
    expect(textOf(await evalCell(client, 'print(answer)'))).toContain('42');

    expect(await backend.isComplete('for i in x:')).not.toEqual(await backend.isComplete('x = 1'));
    await expect(backend.restart()).rejects.toThrow(/not restarted from here/);
  });

  it("says so when the agent restarts one of the session's kernels; leaving ends the cells it still followed", async () => {
    const { client, env } = await agent();
    expect(textOf(await evalCell(client, 'state = 1'))).toBe('(no output)');
    const { backend } = await follow(env);
    const notices: string[] = [];
    backend.onNotice?.((text) => notices.push(text));
    const restarted = (await client.callTool({
      name: 'restart',
      arguments: { language: 'py' },
    })) as CallToolResult;
    expect(restarted.isError).toBeFalsy();
    await waitFor(() => notices.length > 0, 30_000, 'the notice');
    expect(notices).toEqual([
      'The agent restarted the Python kernel of this session: the state that was in it is gone.',
    ]);
    // A cell of the agent's that the notebook shows running ends when the person leaves.
    const batches: AgentCell[][] = [];
    backend.onAgentCells?.((cells) => batches.push(cells));
    const flag = join(mkdtempSync(join(tmpdir(), 'omp-attach-flag-')), 'go');
    const live = evalCell(
      client,
      `import os, time\nwhile not os.path.exists(${JSON.stringify(flag)}): time.sleep(0.02)`,
    );
    await waitFor(() => batches.some((b) => b.length > 0), 30_000, 'the live call');
    const shown = cell(backend, batches.at(-1)?.[0] as AgentCell);
    await backend.dispose();
    const left = await shown.result;
    expect(left.status).toBe('cancelled');
    expect(shown.events).toContainEqual({
      kind: 'notice',
      text: 'the notebook detached; the cell runs on in the agent\u2019s session',
    });
    writeFileSync(flag, '');
    expect(((await live) as CallToolResult).isError).toBe(false);
  });

  it("interrupts the running cell on Ctrl-C, and ends when the agent's connection does", async () => {
    const { client, connection, env } = await agent();
    expect(textOf(await evalCell(client, '1 + 1'))).toBe('2');
    const { backend, states } = await follow(env);
    const typed = cell(backend, {
      code: 'import time\nprint("ready", flush=True)\nwhile True: time.sleep(0.02)',
    });
    await waitFor(() => typed.text().includes('ready'), 60_000, 'the cell to run');
    backend.interrupt();
    const result = await typed.result;
    expect(result.status).toBe('cancelled');
    expect(result.error?.ename).toBe('KeyboardInterrupt');

    let ended = false;
    backend.onEnded?.(() => {
      ended = true;
    });
    await client.close();
    await connection.close();
    await waitFor(() => ended, 30_000, 'the end of the session');
    expect(backend.endedWith).toMatch(/MCP connection ended/);
    expect(backend.kernelState()).toBe('dead');
    expect(states.at(-1)).toBe('dead');
    // A cell typed after the end does not run, and says why.
    const late = await cell(backend, { code: '1' }).result;
    expect(late.status).toBe('error');
    expect(late.text).toMatch(/MCP connection ended/);
  });
});

describe('omp-eval attach, in process', { timeout: 120_000 }, () => {
  it('lists the live sessions, and refuses a session it cannot find or a notebook without a terminal', async () => {
    const empty = { XDG_RUNTIME_DIR: mkdtempSync(join(tmpdir(), 'omp-attach-none-')) };
    const none = outputStreams();
    expect(await runAttach({ list: true, images: 'off', env: empty, ...none.streams })).toBe(0);
    expect(none.out()).toMatch(/^No omp-eval mcp server of yours is running/);

    const { client, env } = await agent();
    const early = outputStreams();
    expect(await runAttach({ list: true, images: 'off', env, ...early.streams })).toBe(0);
    expect(early.out()).toMatch(/^1 omp-eval mcp server \(pid \d+\), no session yet/);

    expect(textOf(await evalCell(client, '1 + 1'))).toBe('2');
    const listed = outputStreams();
    expect(await runAttach({ list: true, images: 'off', env, ...listed.streams })).toBe(0);
    const [header, row] = listed.out().split('\n');
    expect(header).toMatch(/^SESSION +NAME +CLIENT +LANGUAGES +CELLS +IDLE +DIRECTORY$/);
    expect(row).toMatch(new RegExp(`^${process.pid}/\\d+ +default +agent-x +py +1 +\\d+ s +/`));

    const missing = outputStreams();
    expect(await runAttach({ session: 'nope', images: 'off', env, ...missing.streams })).toBe(1);
    expect(missing.err()).toMatch(
      /^omp-eval attach: no session "nope" \(omp-eval attach --list shows them\)\nSESSION/,
    );
    // (vitest's stdin is no terminal)
    const pipe = outputStreams();
    expect(await runAttach({ session: 'default', images: 'off', env, ...pipe.streams })).toBe(2);
    expect(pipe.err()).toBe(
      'omp-eval attach: the notebook needs a terminal (omp-eval attach --list works anywhere)\n',
    );
  });
});
