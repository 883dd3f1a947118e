/**
 * The notebook's orchestration: the state reducer, running queued cells one at a time through the
 * backend, batching their output (about every 50 ms) before it reaches React, and following the
 * kernel's state.
 */
import { useCallback, useEffect, useReducer, useRef, useState } from 'react';
import { type CellResult, cellLanguage, failedResult, type OutputEvent } from '../../eval/index.js';
import { renderMarkdown } from '../../render/markdown.js';
import type { NotebookBackend } from '../backend.js';
import { type ImageMode, placeholder, renderBlocks } from '../lib/images.js';
import {
  type Action,
  type CellStatus,
  type CellView,
  initialState,
  type OutputPiece,
  reducer,
  type State,
} from '../state/reducer.js';

export const FLUSH_MS = 50;
/** Images get at most this many rows (two pixels each) of the terminal. */
export const IMAGE_ROWS = 16;
/** Output of background threads is gathered this long into one block. */
const BACKGROUND_MS = 100;

export function statusOf(result: CellResult): CellStatus {
  if (result.status === 'ok') return 'ok';
  if (result.status === 'skipped') return 'skipped';
  if (result.timedOut) return 'timed-out';
  if (result.kernelKilled) return 'killed';
  return result.status === 'cancelled' ? 'cancelled' : 'error';
}

function statusText(event: { op: string; [key: string]: unknown }): string {
  const fields = Object.entries(event)
    .filter(([k]) => k !== 'op')
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`);
  return [event.op, ...fields].join(' ');
}

type Pending = OutputPiece | Promise<OutputPiece>;

export interface NotebookOptions {
  backend: NotebookBackend;
  imageMode: ImageMode;
  columns: number;
  /** Results may carry terminal colours (the js kernel's util.inspect). */
  color?: boolean;
}

export interface Notebook {
  state: State;
  dispatch: (action: Action) => void;
  restart: () => Promise<void>;
  /** Queues code cells to run in order. */
  submit: (cells: { code: string; title?: string }[]) => void;
  /** The running cell, if any. */
  running?: CellView;
  /** Ticks while a cell runs, for spinners and elapsed times. */
  now: number;
}

export function useNotebook({ backend, imageMode, columns, color = false }: NotebookOptions): Notebook {
  const [state, dispatch] = useReducer(
    reducer,
    undefined,
    (): State =>
      initialState({
        state: backend.kernelState(),
        ...(backend.python ? { python: backend.python } : {}),
        ...(backend.version ? { version: backend.version } : {}),
        language: backend.language,
        cwd: backend.cwd,
        mode: backend.mode,
        executionCount: 0,
      }),
  );
  const pending = useRef(new Map<number, Pending[]>());
  const busy = useRef(false);
  const [now, setNow] = useState(() => Date.now());
  const columnsRef = useRef(columns);
  columnsRef.current = columns;

  /** Moves every piece whose image is rendered, in order, into the state. */
  const flush = useCallback(async (id: number, wait: boolean) => {
    const queue = pending.current.get(id);
    if (!queue?.length) return;
    const ready: OutputPiece[] = [];
    while (queue.length) {
      const head = queue[0] as Pending;
      if (head instanceof Promise) {
        if (!wait) break;
        ready.push(await head);
      } else ready.push(head);
      void queue.shift();
    }
    if (ready.length) dispatch({ type: 'output', id, pieces: mergeText(ready) });
  }, []);

  const onEvent = useCallback(
    (id: number, event: OutputEvent) => {
      const queue = pending.current.get(id) ?? [];
      pending.current.set(id, queue);
      const text = (stream: Extract<OutputPiece, { kind: 'text' }>['stream'], t: string) =>
        queue.push({ kind: 'text', stream, text: t });
      switch (event.kind) {
        case 'stdout':
        case 'stderr':
          text(event.kind, event.text);
          break;
        case 'result':
        case 'display': {
          // Markdown (and HTML, converted) is rendered for the terminal: headings, lists, tables.
          const body =
            event.markdown !== undefined
              ? renderMarkdown(event.markdown, Math.max(20, columnsRef.current - 2))
              : ((color ? event.ansi : undefined) ??
                event.text ??
                (event.json !== undefined ? JSON.stringify(event.json, null, 2) : undefined));
          // Beside an image, a default repr (<Figure size 640x480 ...>) says nothing more.
          const reprOnly = event.images.length > 0 && body !== undefined && /^<[^\n]*>\s*$/.test(body);
          if (body !== undefined && !reprOnly) {
            text(event.kind === 'result' ? 'result' : 'stdout', body.endsWith('\n') ? body : `${body}\n`);
          }
          for (const image of event.images) {
            if (imageMode === 'kitty' || imageMode === 'iterm') {
              // Drawn through the terminal's own protocol once the cell is printed (see App).
              queue.push({ kind: 'image', image });
            } else if (imageMode === 'blocks') {
              queue.push(
                renderBlocks(image, Math.max(10, columnsRef.current - 4), IMAGE_ROWS).then((ansi) => ({
                  kind: 'image',
                  image,
                  ansi,
                })),
              );
            } else queue.push({ kind: 'text', stream: 'stdout', text: `${placeholder(image)}\n` });
          }
          break;
        }
        case 'error':
          text('error', `${event.traceback.join('\n')}\n`);
          break;
        case 'status':
          text('status', `${statusText(event.event)}\n`);
          if (event.event.op === 'cd' && typeof event.event.path === 'string') {
            dispatch({ type: 'kernel', info: { cwd: event.event.path } });
          }
          break;
        case 'notice':
          text('notice', `${event.text}\n`);
          break;
        case 'input_request':
          void flush(id, true).then(() =>
            dispatch({ type: 'input', id, prompt: { prompt: event.prompt, password: event.password } }),
          );
          break;
        default:
          break;
      }
    },
    [flush, imageMode, color],
  );

  /** Starts a kernel now, so the status line shows it ready (or why it is not). */
  const startKernel = useCallback(() => {
    dispatch({ type: 'kernel', info: { state: 'starting' } });
    backend.start().then(
      () => dispatch({ type: 'kernel', info: { state: backend.kernelState(), executionCount: 0 } }),
      (err: unknown) => {
        dispatch({ type: 'kernel', info: { state: 'dead' } });
        dispatch({ type: 'info', text: `The Python kernel could not be started: ${(err as Error).message}` });
      },
    );
  }, [backend]);

  // Run the next queued cell when nothing runs.
  const next = state.cells.find((c) => c.status === 'queued');
  const running = state.cells.find((c) => c.status === 'running');
  useEffect(() => {
    if (!next || running || busy.current) return;
    busy.current = true;
    const id = next.id;
    dispatch({ type: 'start', id, at: Date.now() });
    dispatch({ type: 'kernel', info: { state: 'busy' } });
    const timer = setInterval(() => void flush(id, false), FLUSH_MS);
    void backend
      .runCell({ code: next.code, onEvent: (event) => onEvent(id, event) })
      .catch((err: unknown) => {
        const message = err instanceof Error ? err.message : String(err);
        onEvent(id, { kind: 'notice', text: message });
        return failedResult({ index: 0, language: 'py' }, 0, message);
      })
      .then(async (result) => {
        clearInterval(timer);
        await flush(id, true);
        pending.current.delete(id);
        const status = statusOf(result);
        // A dead or killed kernel's count belongs to the cell before: this cell has none.
        const died = status === 'killed' || result.error?.ename === 'KernelDied';
        const executionCount = died ? undefined : result.executionCount;
        dispatch({
          type: 'finish',
          id,
          status,
          durationMs: result.durationMs,
          ...(executionCount ? { executionCount } : {}),
        });
        dispatch({
          type: 'kernel',
          info: { state: backend.kernelState(), ...(executionCount ? { executionCount } : {}) },
        });
        if (status !== 'ok') dispatch({ type: 'skipRest', afterId: id });
        if (died) {
          dispatch({
            type: 'info',
            text: `The kernel ${status === 'killed' ? 'was killed' : 'died'}: its state is lost. A fresh kernel is starting.`,
          });
          startKernel();
        }
        busy.current = false;
      });
    return undefined;
  }, [next, running, backend, flush, onEvent, startKernel]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: once, at mount
  useEffect(() => startKernel(), []);

  // Spinner and elapsed time while a cell runs; kernel state all along.
  useEffect(() => {
    const tick = setInterval(
      () => {
        if (running) setNow(Date.now());
        const kernelState = backend.kernelState();
        if (kernelState !== state.kernel.state) dispatch({ type: 'kernel', info: { state: kernelState } });
      },
      running ? 100 : 250,
    );
    return () => clearInterval(tick);
  }, [running, backend, state.kernel.state]);

  // Output that threads of earlier cells print between cells: a block of its own.
  useEffect(() => {
    let buffered = '';
    let timer: NodeJS.Timeout | undefined;
    const unsubscribe = backend.onBackground((_, text) => {
      buffered += text;
      timer ??= setTimeout(() => {
        dispatch({ type: 'info', text: buffered.replace(/\n$/, ''), stream: 'stdout' });
        buffered = '';
        timer = undefined;
      }, BACKGROUND_MS);
    });
    return () => {
      clearTimeout(timer);
      unsubscribe();
    };
  }, [backend]);

  /** Restarts the kernel now: state is lost, counts start again. */
  const restart = useCallback(async () => {
    await backend.restart();
    dispatch({ type: 'kernel', info: { executionCount: 0 } });
    startKernel();
  }, [backend, startKernel]);

  const submit = useCallback(
    (cells: { code: string; title?: string }[]) => {
      const typed = cells.map((c) => ({ ...c, language: cellLanguage(c.code, backend.language).language }));
      if (typed.length) dispatch({ type: 'submit', cells: typed });
    },
    [backend],
  );

  return { state, dispatch, submit, restart, ...(running ? { running } : {}), now };
}

/** Joins neighbouring text pieces of one stream, so the reducer appends once per stream. */
function mergeText(pieces: OutputPiece[]): OutputPiece[] {
  const out: OutputPiece[] = [];
  for (const piece of pieces) {
    const last = out.at(-1);
    if (piece.kind === 'text' && last?.kind === 'text' && last.stream === piece.stream) {
      out[out.length - 1] = { ...last, text: last.text + piece.text };
    } else out.push(piece);
  }
  return out;
}
