/**
 * Runs queued cells one at a time through the backend. Output goes into the cell's bounded buffer
 * as it comes and reaches React on the running cell's tick, every 100 ms (and once at the cell's
 * end), so the notebook's work does not grow with what a cell prints: one render per tick carries
 * both the new output and the clock for the spinner and the elapsed time.
 */
import { type RefObject, useCallback, useEffect, useRef } from 'react';
import { type CellResult, cellLanguage, failedResult } from '../../eval/index.js';
import type { NotebookBackend } from '../backend.js';
import type { ImageMode } from '../rendering/images.js';
import type { IdleCollector } from '../runtime/memory.js';
import { CellEvents } from '../session/cellEvents.js';
import { openSpill } from '../session/spill.js';
import { type Action, type CellStatus, type CellView, runningCell, type State } from '../state/reducer.js';

export const FLUSH_MS = 100;
/** While a cell floods its output (more than FLOOD_CHARS a tick), a tick every FLOOD_FLUSH_MS. */
export const FLOOD_FLUSH_MS = 200;
const FLOOD_CHARS = 200_000;

function statusOf(result: CellResult): CellStatus {
  if (result.status === 'ok') return 'ok';
  if (result.status === 'skipped') return 'skipped';
  if (result.timedOut) return 'timed-out';
  if (result.kernelKilled) return 'killed';
  return result.status === 'cancelled' ? 'cancelled' : 'error';
}

export interface RunnerOptions {
  backend: NotebookBackend;
  state: State;
  dispatch: (action: Action) => void;
  imageMode: ImageMode;
  color: boolean;
  columns: number;
  startKernel: () => void;
  clock: () => number;
  /** set_next_input() / %load in a cell: its text for the prompt, given once the cell has ended. */
  onNextInput: (text: string) => void;
  /** Told when cells run and when none runs or waits any more. */
  memory?: IdleCollector;
  /** The state as the last action left it (the rendered `state` trails it by up to a frame). */
  current?: () => State;
}

export interface CellRunner {
  submit: (cells: { code: string; title?: string }[]) => void;
  interrupt: () => void;
  restart: () => Promise<void>;
  answer: (cell: CellView, value: string | null) => void;
  /** Ctrl-C while input() waits: `typed` stays in the output, nothing is sent. */
  abandonInput: (cell: CellView, typed: string) => void;
  /** When the last interrupted cell ended (or the interrupt was sent, while it runs). */
  lastInterrupt: () => number | undefined;
}

const latest = (opts: RunnerOptions) => opts.current?.() ?? opts.state;

/** What running one cell needs from the hook: its options and its refs. */
interface RunContext {
  settings: RefObject<RunnerOptions>;
  restarting: RefObject<boolean>;
  interruptedAt: RefObject<number | undefined>;
  currentEvents: RefObject<CellEvents | undefined>;
}

function eventsFor(ctx: RunContext, id: number, onNextInput: (text: string) => void): CellEvents {
  const { settings, restarting } = ctx;
  const { dispatch } = settings.current;
  return new CellEvents(
    {
      imageMode: settings.current.imageMode,
      color: settings.current.color,
      columns: () => settings.current.columns,
      restarting: () => restarting.current,
      onInput: (prompt) => dispatch({ type: 'input', id, prompt }),
      onCd: (path) => dispatch({ type: 'kernel', info: { cwd: path } }),
      onNextInput,
    },
    openSpill,
  );
}

/** One render: the output if it changed, and the time (the spinner turns even when it did not). */
function flusher(ctx: RunContext, id: number, events: CellEvents): (wait: boolean) => Promise<void> {
  const { dispatch, clock } = ctx.settings.current;
  let shown = -1;
  return async (wait) => {
    await events.drain(wait);
    const changed = events.buffer.version !== shown;
    shown = events.buffer.version;
    dispatch({ type: 'output', id, now: clock(), ...(changed ? { output: events.buffer.snapshot() } : {}) });
  };
}

/**
 * The running cell's ticks: every FLUSH_MS, or every FLOOD_FLUSH_MS while it prints more than
 * FLOOD_CHARS a tick. A wall of text scrolls as well at five frames a second, and each frame
 * (rows made, the screen drawn) costs the same whatever it shows: the notebook's CPU while a cell
 * floods its output is mostly frames.
 */
export function ticker(
  flush: (wait: boolean) => Promise<void>,
  events: Pick<CellEvents, 'buffer'>,
): { stop: () => void } {
  let timer: NodeJS.Timeout | undefined;
  let seen = 0;
  let stopped = false;
  const tick = (ms: number) => {
    timer = setTimeout(() => {
      const received = events.buffer.received;
      const flood = received - seen > (FLOOD_CHARS * ms) / FLUSH_MS;
      seen = received;
      void flush(false).then(() => {
        if (!stopped) tick(flood ? FLOOD_FLUSH_MS : FLUSH_MS);
      });
    }, ms);
  };
  tick(FLUSH_MS);
  return {
    stop: () => {
      stopped = true;
      clearTimeout(timer);
    },
  };
}

/** Runs one cell to its end: output on every tick, then the cell's status and what follows from it. */
async function runCell(ctx: RunContext, cell: CellView): Promise<void> {
  const { id } = cell;
  const { backend, dispatch, clock } = ctx.settings.current;
  dispatch({ type: 'start', id, at: clock() });
  // The count this cell gets if it starts (cells run one at a time): tracebacks name it.
  const cellNumber = latest(ctx.settings.current).counter + 1;
  let nextInput: string | undefined;
  let started = false;
  const events = eventsFor(ctx, id, (text) => {
    nextInput = text;
  });
  ctx.currentEvents.current = events;
  const flush = flusher(ctx, id, events);
  const ticks = ticker(flush, events);
  const result = await backend
    .runCell({
      code: cell.code,
      ...(cell.party ? { party: cell.party } : {}),
      cellNumber,
      onEvent: (event) => {
        if (event.kind === 'started') started = true;
        events.onEvent(event);
        // input() waits for an answer: what the cell printed before must be on screen.
        if (event.kind === 'input_request') void flush(true);
      },
    })
    .catch((err: unknown) => {
      const message = err instanceof Error ? err.message : String(err);
      events.onEvent({ kind: 'notice', text: message });
      return failedResult({ index: 0, language: 'py' }, 0, message);
    });
  ticks.stop();
  ctx.currentEvents.current = undefined;
  await finishCell(ctx, id, events, result, started);
  if (nextInput !== undefined) ctx.settings.current.onNextInput(nextInput);
}

async function finishCell(
  ctx: RunContext,
  id: number,
  events: CellEvents,
  result: CellResult,
  started: boolean,
): Promise<void> {
  const { dispatch, clock } = ctx.settings.current;
  await events.drain(true);
  events.buffer.end();
  const status = ctx.restarting.current && result.status !== 'ok' ? 'cancelled' : statusOf(result);
  if (status === 'cancelled' && ctx.interruptedAt.current !== undefined) ctx.interruptedAt.current = clock();
  dispatch({
    type: 'finish',
    id,
    status,
    durationMs: result.durationMs,
    output: events.buffer.snapshot(),
    counted: started,
  });
  if (status !== 'ok') dispatch({ type: 'skipRest', afterId: id });
  const died = status === 'killed' || result.error?.ename === 'KernelDied';
  if (died && !ctx.restarting.current) ctx.settings.current.startKernel();
}

export function useCellRunner(opts: RunnerOptions): CellRunner {
  const { backend, state, dispatch, clock } = opts;
  const busy = useRef(false);
  const restarting = useRef(false);
  const interruptedAt = useRef<number | undefined>(undefined);
  const currentRun = useRef<Promise<void> | undefined>(undefined);
  const currentEvents = useRef<CellEvents | undefined>(undefined);
  const settings = useRef(opts);
  settings.current = opts;

  // Runs the next queued cell when nothing runs: after each render, and as a cell ends (the next
  // one starts without waiting for a frame; a burst of an agent's quick calls renders once a frame).
  const runNext = useCallback(() => {
    const now = latest(settings.current);
    const next = now.live.find((c) => c.status === 'queued');
    if (busy.current || !next || runningCell(now)) return;
    busy.current = true;
    currentRun.current = runCell({ settings, restarting, interruptedAt, currentEvents }, next).then(() => {
      busy.current = false;
      runNext();
    });
  }, []);

  // Run the next queued cell when nothing runs.
  const running = runningCell(state);
  const next = state.live.find((c) => c.status === 'queued');
  const memory = opts.memory;
  const working = next !== undefined || running !== undefined;
  useEffect(() => {
    if (working) memory?.busy();
    else memory?.idle();
  }, [working, memory]);
  useEffect(() => () => memory?.dispose(), [memory]);
  useEffect(() => {
    if (next && !running) runNext();
  }, [next, running, runNext]);

  const submit = useCallback(
    (cells: { code: string; title?: string }[]) => {
      // Python cells on a remote kernel are highlighted in the language it says it speaks.
      const remote = backend.remote?.languageInfo?.name;
      const typed = cells.map((c) => {
        const language = cellLanguage(c.code, backend.language).language;
        return { ...c, language, ...(remote && language === 'py' ? { highlight: remote } : {}) };
      });
      if (typed.length) dispatch({ type: 'submit', cells: typed });
    },
    [backend, dispatch],
  );

  const interrupt = useCallback(() => {
    interruptedAt.current = clock();
    backend.interrupt();
  }, [backend, clock]);

  /** Restarts the kernel now: its state is lost; a running cell ends as cancelled. */
  const restart = useCallback(async () => {
    restarting.current = true;
    try {
      await backend.restart();
      // The cell that was running ends now: its notice of the shutdown is not news.
      await currentRun.current;
    } finally {
      restarting.current = false;
    }
    settings.current.startKernel();
  }, [backend]);

  /**
   * Answers input() in the running cell (`null`: the end of input, Ctrl-D); the prompt and the
   * answer (unless hidden) stay in its output.
   */
  const answer = useCallback(
    (cell: CellView, value: string | null) => {
      backend.sendInput(value);
      const events = currentEvents.current;
      if (cell.input && events) {
        const shown = cell.input.password || value === null ? '' : value;
        events.buffer.appendText('stdout', `${cell.input.prompt}${shown}\n`);
        dispatch({ type: 'output', id: cell.id, output: events.buffer.snapshot(), now: clock() });
      }
      dispatch({ type: 'input', id: cell.id });
    },
    [backend, dispatch, clock],
  );

  /**
   * Ctrl-C while input() waits: the prompt and what was typed (unless hidden) stay in the output,
   * as a terminal leaves them above IPython's KeyboardInterrupt; the answer is not sent.
   */
  const abandonInput = useCallback(
    (cell: CellView, typed: string) => {
      const events = currentEvents.current;
      if (cell.input && events) {
        events.buffer.appendText('stdout', `${cell.input.prompt}${cell.input.password ? '' : typed}\n`);
        dispatch({ type: 'output', id: cell.id, output: events.buffer.snapshot(), now: clock() });
      }
      dispatch({ type: 'input', id: cell.id });
    },
    [dispatch, clock],
  );

  return { submit, interrupt, restart, answer, abandonInput, lastInterrupt: () => interruptedAt.current };
}
