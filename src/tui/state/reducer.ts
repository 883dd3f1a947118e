/**
 * The notebook's state: the live cells (queued and running), the finished ones as compact data
 * (already printed: kept for Ctrl-O and /save), the execution counter and the kernel's status.
 * Pure: every change is an action, so the transitions are unit-tested without a terminal.
 */
import type { Language } from '../../eval/index.js';
import { emptyOutput, type Output, type Stream, textOutput } from './output.js';

/** The status line's hint while a Ctrl-C interrupts the running cell. */
export const INTERRUPTING_MESSAGE = 'Interrupting… (killed after 5 s)';

export type CellStatus =
  | 'queued'
  | 'running'
  | 'ok'
  | 'error'
  | 'cancelled'
  | 'timed-out'
  | 'killed'
  | 'skipped';

/**
 * Who ran a cell of a followed MCP session (`omp-eval attach`): the agent, or a person (a cell
 * typed here once the server started it, or one typed in another notebook following it).
 */
export interface Party {
  by: 'agent' | 'person';
  /** The client's name (`claude-code`), when it gave one. */
  client?: string;
  /** The call's number in its session, the cell's place in it (from 0) and the call's cell count. */
  call: number;
  cell: number;
  cells: number;
}

export interface CellView {
  id: number;
  /** Set for an agent's cell; unset for the person's own. */
  party?: Party;
  /** `info` entries are the notebook's own messages (help, restarts), not code. */
  kind?: 'info';
  /** An `info` entry with what threads of earlier cells printed between cells: no blank line after it. */
  background?: boolean;
  code: string;
  title?: string;
  /** The language the cell runs in (its `%%js` / `%%py` line, else the notebook's). */
  language?: Language;
  /** How its code is highlighted when not by `language`: a remote kernel's language (`R`). */
  highlight?: string;
  status: CellStatus;
  /** The notebook's own count, one sequence across Python and JavaScript cells. */
  executionCount?: number;
  startedAt?: number;
  durationMs?: number;
  output: Output;
  /** input() is waiting for an answer. */
  input?: { prompt: string; password: boolean };
}

/**
 * The kernel's state as the notebook shows it: the engine's `KernelStatus` with `stopping` shown as
 * `dead` (a kernel being stopped is about to be replaced).
 */
export type NotebookKernelState = 'starting' | 'idle' | 'busy' | 'interrupting' | 'dead' | 'none';

export interface KernelInfo {
  state: NotebookKernelState;
  python?: string;
  version?: string;
  /** The notebook's default language: the status line names its runtime. */
  language?: Language;
  /** The Jupyter kernel and server running the Python cells (`python3 3d3645bf on host:8888`). */
  remote?: string;
  /** The Jupyter server configured for them (`host:8888`), while no kernel there is known. */
  jupyter?: string;
  /** The language the remote kernel says it speaks (kernel_info: `python`, `R`): Python cells are highlighted so. */
  remoteLanguage?: string;
  cwd: string;
  mode: string;
  /** The kernels' sandbox ("sandbox workspace-write"); unset when they run without one. */
  sandbox?: string;
  /** The kernels' environment: "env whole" or "env filtered" (envFilter.ts). */
  env?: string;
}

export interface State {
  /** Queued and running cells, in order. */
  live: CellView[];
  /** Finished cells and messages, in the order they were printed. */
  done: CellView[];
  nextId: number;
  /** The last execution count given. */
  counter: number;
  /** The cell Ctrl-O acts on; undefined means the latest finished one. */
  selected?: number;
  kernel: KernelInfo;
  /** A short message on the status line. */
  message?: string;
  /** Ctrl-C was pressed once on an empty prompt: a second press exits (until it expires). */
  exitArmed: boolean;
  /** The time of the running cell's last tick, for its spinner and elapsed time. */
  now?: number;
}

export type Action =
  | {
      type: 'submit';
      cells: { code: string; title?: string; language?: Language; highlight?: string; party?: Party }[];
    }
  | { type: 'start'; id: number; at: number }
  | { type: 'output'; id: number; output?: Output; now: number }
  | { type: 'input'; id: number; prompt?: { prompt: string; password: boolean } }
  | { type: 'finish'; id: number; status: CellStatus; durationMs: number; output: Output; counted: boolean }
  | { type: 'skipRest'; afterId: number }
  | { type: 'select'; delta: number }
  | { type: 'kernel'; info: Partial<KernelInfo> }
  | { type: 'message'; text?: string }
  | { type: 'armExit'; armed: boolean }
  | { type: 'info'; text: string; stream?: Stream }
  /** What threads of earlier cells printed between cells. */
  | { type: 'background'; output: Output };

export function initialState(kernel: KernelInfo): State {
  return { live: [], done: [], nextId: 1, counter: 0, kernel, exitArmed: false };
}

const codeCells = (state: State) => state.done.filter((c) => c.kind !== 'info' && c.status !== 'skipped');

/** The cell Ctrl-O acts on. */
export function selectedCell(state: State): CellView | undefined {
  const cells = codeCells(state);
  return (
    (state.selected !== undefined ? cells.find((c) => c.id === state.selected) : undefined) ?? cells.at(-1)
  );
}

function updateLive(state: State, id: number, change: (cell: CellView) => CellView): State {
  const index = state.live.findIndex((c) => c.id === id);
  if (index === -1) return state;
  const live = state.live.slice();
  live[index] = change(live[index] as CellView);
  return { ...state, live };
}

function submitted(state: State, action: Extract<Action, { type: 'submit' }>): State {
  let nextId = state.nextId;
  const added = action.cells.map(
    (c): CellView => ({
      id: nextId++,
      code: c.code,
      ...(c.title ? { title: c.title } : {}),
      ...(c.language ? { language: c.language } : {}),
      ...(c.highlight ? { highlight: c.highlight } : {}),
      ...(c.party ? { party: c.party } : {}),
      status: 'queued',
      output: emptyOutput(),
    }),
  );
  // A new cell makes the latest the one Ctrl-O prints again (Alt-Up chose an earlier one).
  const { selected: _, ...rest } = state;
  // (an agent's call leaves the person's message and armed exit alone)
  if (action.cells.every((c) => c.party)) {
    // Before the person's cells still waiting here: the agent's call is running already, and
    // those reach the kernel after it.
    const at = state.live.findIndex((c) => c.status === 'queued' && !c.party);
    const live =
      at === -1 ? [...state.live, ...added] : [...state.live.slice(0, at), ...added, ...state.live.slice(at)];
    return { ...state, live, nextId };
  }
  return { ...rest, live: [...state.live, ...added], nextId, exitArmed: false, message: undefined };
}

function finished(state: State, action: Extract<Action, { type: 'finish' }>): State {
  const cell = state.live.find((c) => c.id === action.id);
  if (!cell) return state;
  const { input: _, ...rest } = cell;
  // One count per cell that ran, whatever its language or outcome.
  const counter = action.counted ? state.counter + 1 : state.counter;
  const done: CellView = {
    ...rest,
    status: action.status,
    durationMs: action.durationMs,
    output: action.output,
    ...(action.counted ? { executionCount: counter } : {}),
  };
  return {
    ...state,
    counter,
    message: undefined,
    live: state.live.filter((c) => c.id !== action.id),
    done: [...state.done, done],
  };
}

function selected(state: State, delta: number): State {
  const cells = codeCells(state);
  if (!cells.length) return state;
  const current = selectedCell(state);
  const index = Math.max(
    0,
    cells.findIndex((c) => c.id === current?.id),
  );
  const target = cells[Math.min(cells.length - 1, Math.max(0, index + delta))] as CellView;
  return {
    ...state,
    selected: target.id,
    message: `selected cell [${target.executionCount ?? ' '}] (ctrl+o prints its output)`,
  };
}

export function reducer(state: State, action: Action): State {
  switch (action.type) {
    case 'submit':
      return submitted(state, action);
    case 'start':
      return {
        ...updateLive(state, action.id, (c) => ({ ...c, status: 'running', startedAt: action.at })),
        now: action.at,
      };
    case 'output': {
      const { output } = action;
      const next = output ? updateLive(state, action.id, (c) => ({ ...c, output })) : state;
      return { ...next, now: action.now };
    }
    case 'input':
      return updateLive(state, action.id, (c) => {
        const { input: _, ...rest } = c;
        return action.prompt ? { ...rest, input: action.prompt } : rest;
      });
    case 'finish':
      return finished(state, action);
    case 'skipRest': {
      // The cells behind it of the same party: an agent's failed cell skips the rest of its call
      // (the server says so for each), a person's the person's own queued cells.
      const failed = [...state.live, ...state.done].find((c) => c.id === action.afterId);
      if (failed?.party) return state;
      const skipped = state.live.filter((c) => c.id > action.afterId && c.status === 'queued' && !c.party);
      if (!skipped.length) return state;
      return {
        ...state,
        live: state.live.filter((c) => !skipped.includes(c)),
        done: [...state.done, ...skipped.map((c): CellView => ({ ...c, status: 'skipped' }))],
      };
    }
    case 'select':
      return selected(state, action.delta);
    case 'kernel': {
      // An interrupt the cell answered by asking for input again (pdb) is over: so is its hint.
      const over =
        state.kernel.state === 'interrupting' &&
        action.info.state === 'busy' &&
        state.message === INTERRUPTING_MESSAGE;
      return {
        ...state,
        kernel: { ...state.kernel, ...action.info },
        ...(over ? { message: undefined } : {}),
      };
    }
    case 'message':
      return { ...state, message: action.text };
    case 'armExit':
      return {
        ...state,
        exitArmed: action.armed,
        message: action.armed ? 'Press Ctrl-C again to exit' : undefined,
      };
    case 'info': {
      const entry: CellView = {
        id: state.nextId,
        kind: 'info',
        code: '',
        status: 'ok',
        output: textOutput(action.stream ?? 'notice', action.text),
      };
      return { ...state, done: [...state.done, entry], nextId: state.nextId + 1 };
    }
    case 'background': {
      const entry: CellView = {
        id: state.nextId,
        kind: 'info',
        background: true,
        code: '',
        status: 'ok',
        output: action.output,
      };
      return { ...state, done: [...state.done, entry], nextId: state.nextId + 1 };
    }
    default:
      return state;
  }
}

/** The running cell, if any. */
export const runningCell = (state: State) => state.live.find((c) => c.status === 'running');
/** The count the next cell will get, for the prompt. */
export const nextCount = (state: State) => state.counter + 1;
