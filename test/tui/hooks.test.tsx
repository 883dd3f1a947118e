/**
 * The notebook's hooks (src/tui/hooks/) on their own, each in a small component rendered by Ink
 * into the headless terminal (test/helpers/ink.tsx) and driven through what the hook returns and
 * the fake backend (test/helpers/fakeBackend.ts): the kernel's status and background output, the
 * terminal's size, the prompt's history and search, set_next_input, completion, and an agent's
 * cells.
 */
import { Text } from 'ink';
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentCell } from '../../src/tui/backend.js';
import { useAgentCells } from '../../src/tui/hooks/useAgentCells.js';
import { useCompletion } from '../../src/tui/hooks/useCompletion.js';
import { useEditorState } from '../../src/tui/hooks/useEditorState.js';
import { useFramedReducer } from '../../src/tui/hooks/useFramedReducer.js';
import { useKernelStatus } from '../../src/tui/hooks/useKernelStatus.js';
import { useNextInput } from '../../src/tui/hooks/useNextInput.js';
import { useTerminalSize } from '../../src/tui/hooks/useTerminalSize.js';
import * as ed from '../../src/tui/keys/editor.js';
import type { Action, CellView } from '../../src/tui/state/reducer.js';
import { FakeBackend } from '../helpers/fakeBackend.js';
import { type Harness, mount } from '../helpers/ink.js';
import { waitFor } from '../helpers/kernel.js';

const mounted: Harness[] = [];
afterEach(() => {
  for (const h of mounted.splice(0)) h.unmount();
});
/** Does `act` and returns the frame once it shows something else: what it shows is the test's to expect. */
async function frameAfter(h: Harness, act: () => void): Promise<string> {
  await h.stdout.settled();
  const before = h.frame();
  act();
  return h.waitFor((f) => f !== before, `the frame to change from ${before}`);
}

const show = (element: Parameters<typeof mount>[0], opts?: Parameters<typeof mount>[1]) => {
  const h = mount(element, opts);
  mounted.push(h);
  return h;
};

function Status({ backend, dispatch }: { backend: FakeBackend; dispatch: (a: Action) => void }) {
  useKernelStatus(backend, dispatch);
  return <Text>status</Text>;
}

describe('useKernelStatus', () => {
  it('starts the kernel at mount and follows its state through the subscription', async () => {
    const backend = new FakeBackend();
    backend.state = 'starting';
    const actions: Action[] = [];
    const h = show(<Status backend={backend} dispatch={(a) => actions.push(a)} />);
    await h.waitFor((f) => f.includes('status'));
    await waitFor(() => actions.some((a) => a.type === 'kernel' && a.info.state === 'idle'), 60_000, 'idle');
    expect(actions[0]).toEqual({
      type: 'kernel',
      info: { state: 'starting', mode: 'session', python: '/usr/bin/python3', version: '3.11.7' },
    });
    backend.state = 'busy';
    expect(actions.at(-1)).toMatchObject({ type: 'kernel', info: { state: 'busy' } });
    h.unmount();
    const seen = actions.length;
    backend.state = 'idle';
    expect(actions).toHaveLength(seen); // unsubscribed at unmount
  });

  it('says why the kernel could not start, and shows it dead', async () => {
    const backend = new FakeBackend();
    backend.start = () => Promise.reject(new Error('no python here'));
    const actions: Action[] = [];
    show(<Status backend={backend} dispatch={(a) => actions.push(a)} />);
    await waitFor(() => actions.some((a) => a.type === 'info'), 60_000, 'the message');
    expect(actions).toContainEqual({ type: 'kernel', info: { state: 'dead' } });
    expect(actions).toContainEqual({ type: 'info', text: 'The kernel could not be started: no python here' });
  });

  it('gathers what threads print between cells into one block, each text in its stream', async () => {
    const backend = new FakeBackend();
    const actions: Action[] = [];
    const h = show(<Status backend={backend} dispatch={(a) => actions.push(a)} />);
    await h.waitFor((f) => f.includes('status'));
    backend.background('tick 1\n');
    backend.background('Traceback: boom\n', 'stderr');
    await waitFor(() => actions.some((a) => a.type === 'background'), 60_000, 'the background block');
    const blocks = actions.filter((a) => a.type === 'background');
    expect(blocks).toHaveLength(1);
    const rows = JSON.stringify(blocks[0]);
    expect(rows).toContain('tick 1');
    expect(rows).toContain('Traceback: boom');
    expect(rows).toContain('stderr');
  });
});

function Size() {
  const { columns, rows } = useTerminalSize();
  return <Text>{`size ${columns}x${rows}`}</Text>;
}

describe('useTerminalSize', () => {
  it('gives the terminal’s size and follows its resizes', async () => {
    const h = show(<Size />, { columns: 90, rows: 30 });
    await h.waitFor((f) => f.includes('size 90x30'));
    h.stdout.resize(60, 20);
    const frame = await h.waitFor((f) => f.includes('size 60x20'), 'the new size');
    expect(frame).toContain('size 60x20');
  });
});

/** What a prompt's hooks returned at its last render, for the test to drive. */
interface PromptProbe {
  editing?: ReturnType<typeof useEditorState>;
  next?: (text: string) => void;
  completion?: ReturnType<typeof useCompletion>;
  message?: string;
}

/** A prompt's state and set_next_input. */
function Prompt({ probe }: { probe: PromptProbe }) {
  const editing = useEditorState();
  probe.editing = editing;
  probe.next = useNextInput(editing, (text) => {
    probe.message = text;
  });
  const search = editing.search ? ` search=${editing.search.query}:${editing.search.match ?? '-'}` : '';
  return <Text>{`prompt [${ed.editorText(editing.editor)}]${search}`}</Text>;
}

/** A prompt with completion from `backend`. */
function CompletingPrompt({ probe, backend }: { probe: PromptProbe; backend: FakeBackend }) {
  const editing = useEditorState();
  const completion = useCompletion({
    backend,
    cwd: () => '/',
    editorRef: editing.editorRef,
    setEditor: editing.setEditor,
    setMessage: (text) => {
      probe.message = text;
    },
  });
  probe.editing = editing;
  probe.completion = completion;
  const menu = completion.menu ? ` menu=${completion.menu.items.join(',')}@${completion.menu.index}` : '';
  return <Text>{`prompt [${ed.editorText(editing.editor)}]${menu}`}</Text>;
}

describe('useEditorState', () => {
  it('walks the history through the entries that start with what was typed, and back to the draft', async () => {
    const probe: PromptProbe = {};
    const h = show(<Prompt probe={probe} />);
    await h.waitFor((f) => f.includes('prompt []'));
    const e = () => probe.editing as NonNullable<typeof probe.editing>;
    for (const code of ['print(1)', 'x = 2', 'print(3)']) e().remember(code);
    expect(await frameAfter(h, () => e().setEditor(ed.fromText('pri')))).toBe('prompt [pri]');
    expect(await frameAfter(h, () => e().walkHistory(-1)), 'the newest match').toBe('prompt [print(3)]');
    expect(await frameAfter(h, () => e().walkHistory(-1)), 'the older match, past x = 2').toBe(
      'prompt [print(1)]',
    );
    const againNewer = () => {
      e().walkHistory(-1); // none older: it stays
      e().walkHistory(1);
    };
    expect(await frameAfter(h, againNewer), 'the newer match again').toBe('prompt [print(3)]');
    expect(await frameAfter(h, () => e().walkHistory(1)), 'the draft').toBe('prompt [pri]');
    expect(await frameAfter(h, () => e().clearEditor()), 'an empty prompt').toBe('prompt []');
  });

  it('searches the history (Ctrl-R), keeps the last match when nothing matches, and takes it', async () => {
    const probe: PromptProbe = {};
    const h = show(<Prompt probe={probe} />);
    await h.waitFor((f) => f.includes('prompt []'));
    const e = () => probe.editing as NonNullable<typeof probe.editing>;
    for (const code of ['alpha = 1', 'beta = 2']) e().remember(code);
    e().searchFor('alp');
    await h.waitFor((f) => f.includes('search=alp:alpha = 1'), 'the match');
    e().searchFor('alpz');
    await h.waitFor((f) => f.includes('search=alpz:alpha = 1'), 'the last match kept');
    expect(e().search?.failed).toBe(true);
    e().endSearch(true);
    await h.waitFor((f) => f.includes('prompt [alpha = 1]') && !f.includes('search='), 'the match taken');
  });
});

describe('useNextInput', () => {
  it('puts the text at an empty prompt; a prompt begun keeps its text, and the text goes to the history', async () => {
    const probe: PromptProbe = {};
    const h = show(<Prompt probe={probe} />);
    await h.waitFor((f) => f.includes('prompt []'));
    probe.next?.('%load first\n\n');
    await h.waitFor((f) => f.includes('prompt [%load first]'), 'the text at the prompt');
    expect(probe.message).toBeUndefined();
    probe.editing?.setEditor(ed.fromText('typing'));
    probe.next?.('second');
    expect(probe.message).toMatch(/the text for it is in the history/);
    await h.waitFor((f) => f.includes('prompt [typing]'), 'the typed text kept');
    probe.editing?.clearEditor();
    probe.editing?.walkHistory(-1);
    await h.waitFor((f) => f.includes('prompt [second]'), 'the text in the history');
  });
});

describe('useCompletion', () => {
  it('inserts a single choice; for several, types what they share and opens a menu that Tab cycles and Esc leaves', async () => {
    const backend = new FakeBackend();
    const probe: PromptProbe = {};
    const h = show(<CompletingPrompt probe={probe} backend={backend} />);
    await h.waitFor((f) => f.includes('prompt []'));
    probe.editing?.setEditor(ed.fromText('prin'));
    probe.completion?.complete(1);
    await h.waitFor((f) => f.includes('prompt [print]'), 'the one choice inserted');
    expect(probe.completion?.menu).toBeUndefined();

    probe.editing?.setEditor(ed.fromText('x = val'));
    probe.completion?.complete(1);
    await h.waitFor(
      (f) => f.includes('prompt [x = value_] menu=value_one,value_two@-1'),
      'the shared part and the menu',
    );
    probe.completion?.complete(1);
    await h.waitFor(
      (f) => f.includes('prompt [x = value_one] menu=value_one,value_two@0'),
      'the first choice',
    );
    probe.completion?.complete(-1);
    await h.waitFor(
      (f) => f.includes('prompt [x = value_two] menu=value_one,value_two@1'),
      'Shift-Tab: the last',
    );
    expect(probe.completion?.close(false)).toBe(true);
    await h.waitFor((f) => f.includes('prompt [x = value_]') && !f.includes('menu='), 'the typed text back');
    expect(probe.completion?.close(false)).toBe(false); // no menu open
  });

  it('indents at the start of a line, and says when nothing completes (and why, while a cell runs)', async () => {
    const backend = new FakeBackend();
    const probe: PromptProbe = {};
    const h = show(<CompletingPrompt probe={probe} backend={backend} />);
    await h.waitFor((f) => f.includes('prompt []'));
    expect(await frameAfter(h, () => probe.completion?.complete(1)), 'an indent').toBe('prompt [    ]');
    expect(await frameAfter(h, () => probe.editing?.setEditor(ed.fromText('zzz')))).toBe('prompt [zzz]');
    probe.completion?.complete(1);
    await waitFor(() => probe.message !== undefined, 60_000, 'a message');
    expect(probe.message).toBe('no completions');
    backend.state = 'busy';
    expect(await frameAfter(h, () => probe.editing?.setEditor(ed.fromText('pri')))).toBe('prompt [pri]');
    probe.message = undefined;
    probe.completion?.complete(1);
    await waitFor(() => probe.message !== undefined, 60_000, 'a message');
    expect(probe.message).toBe('no completions while a cell runs');
  });
});

class FollowedBackend extends FakeBackend {
  cellsListener?: (cells: AgentCell[]) => void;
  endedListener?: () => void;
  onAgentCells(listener: (cells: AgentCell[]) => void) {
    this.cellsListener = listener;
    return () => {
      this.cellsListener = undefined;
    };
  }
  onEnded(listener: () => void) {
    this.endedListener = listener;
    return () => {
      this.endedListener = undefined;
    };
  }
}

function Follow({
  backend,
  live,
  onAction,
  onExit,
}: {
  backend: FollowedBackend;
  live: CellView[];
  onAction: (a: Action) => void;
  onExit: () => void;
}) {
  useAgentCells(backend, onAction, live, onExit);
  return <Text>{`live ${live.length}`}</Text>;
}

describe('useAgentCells', () => {
  it('queues each call’s cells, and ends the notebook once the session ended and its cells were shown', async () => {
    const backend = new FollowedBackend();
    const actions: Action[] = [];
    let exits = 0;
    const party = { by: 'agent' as const, call: 1, cell: 0, cells: 1 };
    const onAction = (a: Action) => actions.push(a);
    const onExit = () => exits++;
    const replaying = [{ id: 1, code: '1', party } as CellView];
    const h = show(<Follow backend={backend} live={replaying} onAction={onAction} onExit={onExit} />);
    await waitFor(() => backend.cellsListener !== undefined, 60_000, 'the subscription');
    backend.cellsListener?.([]);
    backend.cellsListener?.([{ code: '1', language: 'py', party }]);
    expect(actions).toEqual([{ type: 'submit', cells: [{ code: '1', language: 'py', party }] }]);
    backend.endedListener?.();
    await h.waitFor((f) => f.includes('live 1'));
    expect(exits).toBe(0); // the agent's cell is still being shown
    h.unmount();
    const done = show(<Follow backend={backend} live={[]} onAction={onAction} onExit={onExit} />);
    await done.waitFor((f) => f.includes('live 0'));
    backend.endedListener?.();
    await waitFor(() => exits === 1, 60_000, 'the notebook to end');
  });
});

interface Seen {
  renders: number;
  dispatch: (by: number) => void;
  current: () => number;
}

/** A counter whose renders are counted. */
function Counter({ frameMs, seen }: { frameMs: number; seen: Seen }) {
  const [count, dispatch, current] = useFramedReducer(
    (n: number, by: number) => n + by,
    () => 0,
    frameMs,
  );
  seen.renders++;
  seen.dispatch = dispatch;
  seen.current = current;
  return <Text>{`count ${count}`}</Text>;
}

describe('useFramedReducer', () => {
  function framed(frameMs: number) {
    const seen: Seen = { renders: 0, dispatch: () => {}, current: () => 0 };
    const h = mount(<Counter frameMs={frameMs} seen={seen} />);
    mounted.push(h);
    return { h, seen };
  }
  const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

  it('renders a change after a quiet frame at once, and the changes within the frame not one by one', async () => {
    const { h, seen } = framed(3_600_000); // (no frame ends during the test)
    await h.waitFor((f) => f.includes('count 0'));
    const first = seen.renders;
    seen.dispatch(1);
    await h.waitFor((f) => f.includes('count 1'));
    const rendered = seen.renders;
    expect(rendered).toBe(first + 1);
    // A burst, each change on a turn of its own (as an agent's messages come): applied at once,
    // not rendered before the frame ends.
    for (let i = 0; i < 50; i++) {
      seen.dispatch(1);
      await nextTurn();
    }
    expect(seen.current()).toBe(51);
    expect(seen.renders).toBe(rendered);
    expect(h.frame()).toContain('count 1');
  });

  it('renders the last change once the frame ends', async () => {
    const { h, seen } = framed(30);
    await h.waitFor((f) => f.includes('count 0'));
    seen.dispatch(1);
    for (let i = 0; i < 20; i++) {
      seen.dispatch(1);
      await nextTurn();
    }
    await h.waitFor((f) => f.includes('count 21'));
  });
});
