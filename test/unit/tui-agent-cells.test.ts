/** An agent's cells in the notebook (a followed session): the 10-line preview, the header, the queue. */
import { describe, expect, it } from 'vitest';
import { partyLabel } from '../../src/tui/components/CellBlock.js';
import { AGENT_PREVIEW, hiddenLabel, previewItems } from '../../src/tui/rendering/preview.js';
import { toNotebook } from '../../src/tui/session/save.js';
import { textOutput } from '../../src/tui/state/output.js';
import { initialState, type Party, reducer } from '../../src/tui/state/reducer.js';

const lines = (n: number) => Array.from({ length: n }, (_, i) => `line ${i}`).join('\n');
const shown = (items: ReturnType<typeof previewItems>) =>
  items.map((item) =>
    'row' in item
      ? item.row.kind === 'text'
        ? item.row.text
        : 'image'
      : hiddenLabel(item.hidden, item.kept),
  );
const party = (call: number, cell: number, cells: number): Party => ({ by: 'agent', call, cell, cells });

describe("an agent's cells", () => {
  it('collapse to 10 lines, where the person’s own keep 20', () => {
    const output = textOutput('stdout', lines(30));
    const agent = shown(previewItems(output, false, AGENT_PREVIEW));
    expect(agent).toEqual([
      'line 0',
      'line 1',
      'line 2',
      '… 20 more lines (ctrl+o shows them)',
      ...Array.from({ length: 7 }, (_, i) => `line ${23 + i}`),
    ]);
    expect(shown(previewItems(output, false))).toHaveLength(21);
    expect(shown(previewItems(textOutput('stdout', lines(10)), false, AGENT_PREVIEW))).toHaveLength(10);
    expect(shown(previewItems(output, true, AGENT_PREVIEW))).toHaveLength(30);
  });

  it('are labelled with their call and place in it', () => {
    expect(partyLabel(party(3, 0, 2))).toBe('agent #3 1/2');
    expect(partyLabel(party(4, 0, 1))).toBe('agent #4');
  });

  it("are queued without touching the person's prompt state, and a failure skips only its own party's cells", () => {
    let state = initialState({ state: 'idle', cwd: '/', mode: 'session' });
    state = reducer(state, { type: 'armExit', armed: true });
    state = reducer(state, {
      type: 'submit',
      cells: [
        { code: 'a', party: party(1, 0, 2) },
        { code: 'b', party: party(1, 1, 2) },
      ],
    });
    expect(state.exitArmed).toBe(true);
    expect(state.live.map((c) => c.party?.cell)).toEqual([0, 1]);
    state = reducer(state, { type: 'submit', cells: [{ code: 'mine' }, { code: 'mine too' }] });
    // An agent's failed cell: the server says what became of the rest of its call.
    state = reducer(state, { type: 'skipRest', afterId: 1 });
    expect(state.live).toHaveLength(4);
    // A person's failed cell skips the person's queued cells, not the agent's.
    state = reducer(state, { type: 'skipRest', afterId: 3 });
    expect(state.live.map((c) => c.code)).toEqual(['a', 'b', 'mine']);
    expect(state.done.map((c) => [c.code, c.status])).toEqual([['mine too', 'skipped']]);
  });

  it("go before the person's cells still waiting (the agent's call runs already), after the running one", () => {
    let state = initialState({ state: 'idle', cwd: '/', mode: 'session' });
    state = reducer(state, { type: 'submit', cells: [{ code: 'running' }, { code: 'waiting' }] });
    state = reducer(state, { type: 'start', id: 1, at: 0 });
    state = reducer(state, { type: 'submit', cells: [{ code: 'agent 1', party: party(1, 0, 1) }] });
    state = reducer(state, {
      type: 'submit',
      cells: [
        { code: 'agent 2a', party: party(2, 0, 2) },
        { code: 'agent 2b', party: party(2, 1, 2) },
      ],
    });
    expect(state.live.map((c) => c.code)).toEqual(['running', 'agent 1', 'agent 2a', 'agent 2b', 'waiting']);
    // With none of the person's waiting, an agent's call goes last.
    state = reducer(state, { type: 'start', id: 2, at: 0 });
    state = reducer(state, { type: 'submit', cells: [{ code: 'agent 3', party: party(3, 0, 1) }] });
    expect(state.live.map((c) => c.code).slice(-2)).toEqual(['waiting', 'agent 3']);
  });

  it('are saved with who ran them (cell metadata); the person’s own carry none', () => {
    let state = initialState({ state: 'idle', cwd: '/', mode: 'session' });
    state = reducer(state, {
      type: 'submit',
      cells: [{ code: 'x = 1', party: { by: 'agent', client: 'claude-code', call: 2, cell: 0, cells: 1 } }],
    });
    state = reducer(state, { type: 'submit', cells: [{ code: 'x + 1' }] });
    for (const id of [1, 2])
      state = reducer(state, {
        type: 'finish',
        id,
        status: 'ok',
        durationMs: 1,
        output: textOutput('stdout', ''),
        counted: true,
      });
    const cells = JSON.parse(toNotebook(state.done)).cells as { metadata: Record<string, unknown> }[];
    expect(cells[0]?.metadata).toEqual({ omp_eval: { by: 'agent', call: 2, client: 'claude-code' } });
    expect(cells[1]?.metadata).toEqual({});
  });
});
