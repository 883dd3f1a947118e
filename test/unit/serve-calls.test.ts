/**
 * The agents' calls a served notebook shows (src/modes/serve/servedCalls.ts), from real session
 * feeds (src/modes/share/feed.ts) of two agents: one sequence of calls for the notebook, each
 * cell replayed to its end, Ctrl-C sent to the agent whose cell is shown, and a call whose agent
 * went away ended in the notebook instead of waiting for ever.
 */
import { describe, expect, it } from 'vitest';
import type { CellResult, OutputEvent } from '../../src/eval/index.js';
import { cellResultOf } from '../../src/eval/index.js';
import { ServedCalls } from '../../src/modes/serve/servedCalls.js';
import { FeedRegistry } from '../../src/modes/share/feed.js';
import type { AgentCell } from '../../src/tui/backend.js';

const registry = new FeedRegistry();

function agent(client: string) {
  const interrupts: number[] = [];
  const feed = registry.open('notebook', '/work', () => ({ client, languages: ['py'] }));
  return {
    feed,
    interrupts,
    interruptForPerson: () => {
      interrupts.push(1);
      return true;
    },
  };
}

const ok = (index: number): CellResult =>
  cellResultOf({ index, language: 'py', status: 'ok', exitCode: 0, durationMs: 5, executionCount: 1 });

function replay(calls: ServedCalls, cell: AgentCell) {
  const events: OutputEvent[] = [];
  const done = calls.replay({ code: cell.code, party: cell.party, onEvent: (e) => events.push(e) });
  return { events, done };
}

describe('a served notebook’s agents’ calls', () => {
  it('numbers the calls of every agent in one sequence and replays each cell to its end', async () => {
    const calls = new ServedCalls();
    const a = agent('claude-code');
    const b = agent('codex');
    calls.follow(a);
    calls.follow(b);
    const batches: AgentCell[][] = [];
    // A call before the notebook listens is kept for it.
    const first = a.feed.callStarted([{ index: 0, language: 'py', code: 'x = 1', title: 'load' }]);
    calls.onAgentCells((cells) => batches.push(cells));
    const second = b.feed.callStarted([
      { index: 0, language: 'py', code: 'print(1)' },
      { index: 1, language: 'py', code: 'print(2)' },
    ]);
    expect(
      batches.map((cells) => cells.map((c) => [c.party.call, c.party.cell, c.party.client, c.title])),
    ).toEqual([
      [[1, 0, 'claude-code', 'load']],
      [
        [2, 0, 'codex', undefined],
        [2, 1, 'codex', undefined],
      ],
    ]);

    first.onEvent(0, { kind: 'stdout', text: 'early\n' });
    const one = replay(calls, batches[0]?.[0] as AgentCell);
    first.onEvent(0, { kind: 'stdout', text: 'live\n' });
    first.cellDone(ok(0));
    first.end();
    expect((await one.done).status).toBe('ok');
    expect(one.events).toEqual([
      { kind: 'stdout', text: 'early\n' },
      { kind: 'stdout', text: 'live\n' },
    ]);

    // Ctrl-C while b's cell is shown goes to b, not a.
    const two = replay(calls, batches[1]?.[0] as AgentCell);
    expect(calls.interrupt()).toBe(true);
    expect([a.interrupts.length, b.interrupts.length]).toEqual([0, 1]);
    second.cellDone({ ...ok(0), status: 'cancelled' });
    expect((await two.done).status).toBe('cancelled');
    // With no agent's cell shown, Ctrl-C is the notebook's own.
    expect(calls.interrupt()).toBe(false);

    // b goes away before its second cell ended: the cell ends cancelled, saying why.
    b.feed.end("the agent's MCP connection ended");
    const three = replay(calls, batches[1]?.[1] as AgentCell);
    expect((await three.done).status).toBe('cancelled');
    expect(three.events).toEqual([{ kind: 'notice', text: "the agent's MCP connection ended" }]);
    // a is still followed.
    a.feed.callStarted([{ index: 0, language: 'py', code: 'x' }]);
    expect(batches.at(-1)?.[0]?.party.call).toBe(3);
  });

  it('ends every cell still waiting when serving stops', async () => {
    const calls = new ServedCalls();
    const a = agent('claude-code');
    calls.follow(a);
    const batches: AgentCell[][] = [];
    calls.onAgentCells((cells) => batches.push(cells));
    a.feed.callStarted([{ index: 0, language: 'py', code: 'while True: pass' }]);
    const shown = replay(calls, batches[0]?.[0] as AgentCell);
    calls.endAll('The person stopped sharing this notebook (/serve off)');
    expect((await shown.done).status).toBe('cancelled');
    expect(shown.events.at(-1)).toEqual({
      kind: 'notice',
      text: 'The person stopped sharing this notebook (/serve off)',
    });
  });
});
