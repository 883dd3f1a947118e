/**
 * The notebook's state: an append-only list of cells with monotonic ids, and the kernel's status.
 * Pure: every change is an action, so the transitions are unit-tested without a terminal.
 */
import type { CellLanguage, ImageOutput } from '../../eval/index.js';
import { appendImage, appendText, emptyOutput, type Output, type Stream } from './output.js';

export type CellStatus =
  | 'queued'
  | 'running'
  | 'ok'
  | 'error'
  | 'cancelled'
  | 'timed-out'
  | 'killed'
  | 'skipped';

export const FINISHED: ReadonlySet<CellStatus> = new Set([
  'ok',
  'error',
  'cancelled',
  'timed-out',
  'killed',
  'skipped',
]);

export interface CellView {
  id: number;
  /** `info` entries are the notebook's own messages (help, restarts), not code. */
  kind?: 'info';
  code: string;
  title?: string;
  /** The language the cell runs in (its `%%js` / `%%py` line, else the notebook's). */
  language?: CellLanguage;
  status: CellStatus;
  executionCount?: number;
  startedAt?: number;
  durationMs?: number;
  output: Output;
  expanded: boolean;
  /** input() is waiting for an answer. */
  input?: { prompt: string; password: boolean };
}

export type KernelStatus = 'starting' | 'idle' | 'busy' | 'interrupting' | 'dead' | 'none';

export interface KernelInfo {
  state: KernelStatus;
  python?: string;
  version?: string;
  /** The notebook's default language: the status line names its runtime. */
  language?: CellLanguage;
  cwd: string;
  mode: string;
  executionCount: number;
}

export interface State {
  cells: CellView[];
  nextId: number;
  /** Changing it re-prints the transcript (after a clear or an expand). */
  staticKey: number;
  /** Cells before this id are not shown any more (/clear). */
  shownFrom: number;
  /** The cell Ctrl-O acts on; undefined means the latest finished one. */
  selected?: number;
  kernel: KernelInfo;
  /** A short message on the status line. */
  message?: string;
  /** Ctrl-C was pressed once on an empty prompt: a second press exits. */
  exitArmed: boolean;
}

export type OutputPiece =
  | { kind: 'text'; stream: Stream; text: string }
  | { kind: 'image'; image: ImageOutput; ansi?: string };

export type Action =
  | { type: 'submit'; cells: { code: string; title?: string; language?: CellLanguage }[] }
  | { type: 'start'; id: number; at: number }
  | { type: 'output'; id: number; pieces: OutputPiece[] }
  | { type: 'input'; id: number; prompt?: { prompt: string; password: boolean } }
  | {
      type: 'finish';
      id: number;
      status: CellStatus;
      executionCount?: number;
      durationMs: number;
    }
  | { type: 'skipRest'; afterId: number }
  | { type: 'toggleExpand' }
  | { type: 'select'; delta: number }
  | { type: 'kernel'; info: Partial<KernelInfo> }
  | { type: 'message'; text?: string }
  | { type: 'armExit'; armed: boolean }
  | { type: 'clear' }
  | { type: 'info'; text: string; stream?: Stream }
  | { type: 'reprint' };

export function initialState(kernel: KernelInfo): State {
  return { cells: [], nextId: 1, staticKey: 0, shownFrom: 1, kernel, exitArmed: false };
}

function updateCell(state: State, id: number, change: (cell: CellView) => CellView): State {
  const index = state.cells.findIndex((c) => c.id === id);
  if (index === -1) return state;
  const cells = state.cells.slice();
  cells[index] = change(cells[index] as CellView);
  return { ...state, cells };
}

/** The cell Ctrl-O acts on. */
export function selectedCell(state: State): CellView | undefined {
  const finished = state.cells.filter((c) => FINISHED.has(c.status) && c.id >= state.shownFrom);
  if (state.selected !== undefined) return finished.find((c) => c.id === state.selected) ?? finished.at(-1);
  return finished.at(-1);
}

export function reducer(state: State, action: Action): State {
  switch (action.type) {
    case 'submit': {
      let nextId = state.nextId;
      const added = action.cells.map(
        (c): CellView => ({
          id: nextId++,
          code: c.code,
          ...(c.title ? { title: c.title } : {}),
          ...(c.language ? { language: c.language } : {}),
          status: 'queued',
          output: emptyOutput(),
          expanded: false,
        }),
      );
      return { ...state, cells: [...state.cells, ...added], nextId, exitArmed: false, message: undefined };
    }
    case 'start':
      return updateCell(state, action.id, (c) => ({ ...c, status: 'running', startedAt: action.at }));
    case 'output':
      return updateCell(state, action.id, (c) => {
        let output = c.output;
        for (const piece of action.pieces) {
          output =
            piece.kind === 'text'
              ? appendText(output, piece.stream, piece.text)
              : appendImage(output, piece.image, piece.ansi);
        }
        return { ...c, output };
      });
    case 'input':
      return updateCell(state, action.id, (c) => {
        const { input: _, ...rest } = c;
        return action.prompt ? { ...rest, input: action.prompt } : rest;
      });
    case 'finish':
      return updateCell({ ...state, message: undefined }, action.id, (c) => {
        const { input: _, ...rest } = c;
        return {
          ...rest,
          status: action.status,
          durationMs: action.durationMs,
          ...(action.executionCount ? { executionCount: action.executionCount } : {}),
        };
      });
    case 'skipRest':
      return {
        ...state,
        cells: state.cells.map((c) =>
          c.id > action.afterId && c.status === 'queued' ? { ...c, status: 'skipped' } : c,
        ),
      };
    case 'toggleExpand': {
      const target = selectedCell(state);
      if (!target) return state;
      const next = updateCell(state, target.id, (c) => ({ ...c, expanded: !c.expanded }));
      return { ...next, staticKey: state.staticKey + 1 };
    }
    case 'select': {
      const finished = state.cells.filter((c) => FINISHED.has(c.status) && c.id >= state.shownFrom);
      if (!finished.length) return state;
      const current = selectedCell(state);
      const index = Math.max(
        0,
        finished.findIndex((c) => c.id === current?.id),
      );
      const target = finished[Math.min(finished.length - 1, Math.max(0, index + action.delta))] as CellView;
      return {
        ...state,
        selected: target.id,
        message: `selected cell [${target.executionCount ?? '·'}] (ctrl+o toggles its output)`,
      };
    }
    case 'kernel':
      return { ...state, kernel: { ...state.kernel, ...action.info } };
    case 'message':
      return action.text === undefined
        ? { ...state, message: undefined }
        : { ...state, message: action.text };
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
        output: appendText(emptyOutput(), action.stream ?? 'notice', action.text),
        expanded: true,
      };
      return { ...state, cells: [...state.cells, entry], nextId: state.nextId + 1 };
    }
    case 'reprint':
      return { ...state, staticKey: state.staticKey + 1 };
    case 'clear': {
      const running = state.cells.find((c) => !FINISHED.has(c.status));
      return {
        ...state,
        shownFrom: running?.id ?? state.nextId,
        staticKey: state.staticKey + 1,
        selected: undefined,
      };
    }
    default:
      return state;
  }
}
