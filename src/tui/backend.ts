/**
 * What the notebook needs from the executor, as a small interface: the app is tested against a
 * fake that replays recorded events, and runs against the executor through this adapter.
 */
import {
  type CellResult,
  type Completeness,
  type Completion,
  cellCompleteness,
  cellLanguage,
  type Executor,
  envFilterLabel,
  type Language,
  localCompleteness,
  type OutputEvent,
  type RemoteKernelInfo,
  type Session,
  sandboxLabel,
} from '../eval/index.js';
import type { NotebookKernelState, Party } from './state/reducer.js';

export interface CellRun {
  code: string;
  /** Set for an agent's cell (a followed session): the backend replays it, nothing is run. */
  party?: Party;
  /** The notebook's number for the cell: its tracebacks say `Cell In[n]`. */
  cellNumber?: number;
  onEvent: (event: OutputEvent) => void;
}

export interface NotebookBackend {
  readonly cwd: string;
  readonly mode: string;
  /** The kernels' sandbox for the status line; unset when there is none. */
  readonly sandbox?: string;
  /** Whether the kernels get the whole environment or the filtered one ("env whole"). */
  readonly env?: string;
  /** The Jupyter server that runs the Python cells (`host:8888`), before its kernel is known too. */
  readonly jupyter?: string;
  /** The interpreter and its version, once known. */
  readonly python?: string;
  readonly version?: string;
  /** The Node version, for the notebook's language_info of JavaScript cells. */
  readonly nodeVersion?: string;
  /**
   * Leaving the notebook leaves the kernels running (a followed agent's session): Ctrl-D leaves
   * while only the agent's cells run.
   */
  readonly detaches?: boolean;
  /** The language of cells without a `%%js` / `%%py` first line. */
  readonly language: Language;
  /** The Jupyter server and kernel that run the Python cells (--jupyter), once connected. */
  readonly remote?: RemoteKernelInfo;
  /** Starts the kernel (without running a cell); rejects with the reason it cannot start. */
  start(): Promise<void>;
  /** Runs one cell; resolves with its result (never rejects for Python errors). */
  runCell(run: CellRun): Promise<CellResult>;
  /** Interrupts the running cell (the executor escalates to a kill after 5 s). */
  interrupt(): void;
  /** Completions for the name before `cursor` (none while a cell runs). */
  complete(code: string, cursor: number): Promise<Completion>;
  /** Whether the prompt's text is a whole cell (Enter runs it) or needs more lines. */
  isComplete(text: string): Promise<Completeness>;
  /** Output sent between cells (threads of earlier cells); returns an unsubscribe function. */
  onBackground(listener: (stream: 'stdout' | 'stderr', text: string) => void): () => void;
  /** Calls `listener` with the kernel's state now and at every change; returns an unsubscribe. */
  onKernelState(listener: (state: NotebookKernelState) => void): () => void;
  /** Answers input() in the running cell. */
  /** Answers input(); `null` ends the input (EOFError in the cell). */
  sendInput(value: string | null): void;
  /** Restarts the kernel: state is lost. */
  restart(): Promise<void>;
  kernelState(): NotebookKernelState;
  dispose(): Promise<void>;
  /**
   * A followed agent's session (`omp-eval attach`): calls `listener` with each call's cells as
   * the call starts (its history first); they are run through runCell with their `party`.
   * Returns an unsubscribe.
   */
  onAgentCells?(listener: (cells: AgentCell[]) => void): () => void;
  /** The backend ended on its own (the followed server went away): the notebook ends. */
  onEnded?(listener: () => void): () => void;
  /**
   * `/serve ARGS`: serves the notebook's kernels to agents over MCP (`omp-eval --serve-mcp`,
   * src/modes/serve); resolves with what to print.
   */
  serve?(args: string): Promise<string>;
  /** Messages the backend has for the transcript (serving started or stopped); returns an unsubscribe. */
  onNotice?(listener: (text: string) => void): () => void;
}

/** An agent's cell as the notebook queues it. */
export interface AgentCell {
  code: string;
  language: Language;
  title?: string;
  party: Party;
}

export interface BackendOptions {
  cwd: string;
  /** Seconds per cell; undefined for none. */
  timeout?: number;
  /** The default language of cells (--lang); default py. */
  language?: Language;
  /**
   * The notebook's width now: sent with each cell as COLUMNS, which the kernel also tells pandas,
   * as a terminal tells its programs (undefined: none is sent).
   */
  columns?: () => number | undefined;
}

export async function executorBackend(
  executor: Executor,
  { cwd, timeout, language = 'py', columns }: BackendOptions,
): Promise<NotebookBackend> {
  // A JavaScript notebook starts without a Python; its %%py cells then say why they cannot run.
  const session: Session = await executor.session({ id: 'notebook', cwd, requirePython: language === 'py' });
  const js = language === 'js';
  // The kernel that is working, else the default language's. A kernel being stopped is as good
  // as dead for the notebook (it is about to be replaced).
  const kernelState = (): NotebookKernelState => {
    if (session.kernelOf(language === 'py' ? 'js' : 'py')?.state === 'busy') return 'busy';
    const state = session.kernelOf(language)?.state ?? 'none';
    return state === 'stopping' ? 'dead' : state;
  };
  return {
    cwd: session.cwd,
    mode: session.mode,
    ...(sandboxLabel(executor.sandbox, executor.jupyter)
      ? { sandbox: sandboxLabel(executor.sandbox, executor.jupyter) }
      : {}),
    ...(executor.jupyter && !js ? { jupyter: executor.jupyter } : {}),
    env: envFilterLabel(executor.settings['env.filter'] ?? true),
    language,
    nodeVersion: process.versions.node,
    ...(js
      ? { python: process.execPath, version: process.versions.node }
      : session.python
        ? { python: session.python.executable, version: session.python.version.join('.') }
        : {}),
    get remote() {
      return session.kernelOf('py')?.remote;
    },
    start: () => session.start(language),
    async runCell({ code: text, cellNumber, onEvent }) {
      const cell = { ...cellLanguage(text, language), ...(cellNumber !== undefined ? { cellNumber } : {}) };
      const width = columns?.();
      const [result] = await session.run([cell], {
        ...(width ? { cellEnv: { COLUMNS: String(width) } } : {}),
        allowStdin: true,
        defaultTimeout: timeout ?? null,
        collectOutput: false,
        retryOnDeath: false,
        onEvent: (_, event) => onEvent(event),
      });
      return result as CellResult;
    },
    interrupt: () => session.interrupt(),
    complete: (text, cursor) => {
      const cell = cellLanguage(text, language);
      return session.complete(cell.code, cursor, cell.language);
    },
    isComplete: (text) => cellCompleteness(text, language, (code, lang) => session.isComplete(code, lang)),
    onBackground: (listener) =>
      session.onBackground((frame) => {
        if (frame.type === 'stdout' || frame.type === 'stderr') listener(frame.type, frame.data);
      }),
    onKernelState(listener) {
      let last = kernelState();
      listener(last);
      return session.onKernelState(() => {
        const state = kernelState();
        if (state === last) return;
        last = state;
        listener(state);
      });
    },
    sendInput: (value) => session.sendInput(value),
    restart: () => session.restart(),
    kernelState,
    async dispose() {
      // Disposing first stops a running cell; releasing first would wait for it to end.
      await executor.dispose();
      await session.release();
    },
  };
}

/**
 * A backend usable at once, while the real one is still being made (the interpreter probed, the
 * session opened): the prompt is drawn and takes typing during start-up, and cells typed then
 * run when it is ready. A backend that cannot be made fails each cell with the reason.
 */
export function pendingBackend(
  ready: Promise<NotebookBackend>,
  known: {
    cwd: string;
    language: Language;
    mode: string;
    sandbox?: string;
    jupyter?: string;
    env?: string;
  },
): NotebookBackend {
  let backend: NotebookBackend | undefined;
  let failure: Error | undefined;
  const settled = ready.then(
    (b) => {
      backend = b;
      return b;
    },
    (err: unknown) => {
      failure = err instanceof Error ? err : new Error(String(err));
      throw failure;
    },
  );
  settled.catch(() => {}); // reported by the calls that need the backend
  return {
    get cwd() {
      return backend?.cwd ?? known.cwd;
    },
    get mode() {
      return backend?.mode ?? known.mode;
    },
    get sandbox() {
      return backend?.sandbox ?? known.sandbox;
    },
    get env() {
      return backend?.env ?? known.env;
    },
    get jupyter() {
      return backend?.jupyter ?? known.jupyter;
    },
    get python() {
      return backend?.python;
    },
    get version() {
      return backend?.version;
    },
    get nodeVersion() {
      return backend?.nodeVersion ?? process.versions.node;
    },
    get remote() {
      return backend?.remote;
    },
    language: known.language,
    start: async () => (await settled).start(),
    runCell: async (run) => (await settled).runCell(run),
    interrupt: () => backend?.interrupt(),
    complete: async (code, cursor) =>
      backend ? backend.complete(code, cursor) : { matches: [], start: cursor, end: cursor },
    // Until the session is open no kernel can answer: the local rules do.
    isComplete: (text) =>
      backend
        ? backend.isComplete(text)
        : cellCompleteness(text, known.language, async (code, lang) => localCompleteness(code, lang)),
    onBackground(listener) {
      let unsubscribe: (() => void) | undefined;
      let done = false;
      void settled.then(
        (b) => {
          if (!done) unsubscribe = b.onBackground(listener);
        },
        () => {},
      );
      return () => {
        done = true;
        unsubscribe?.();
      };
    },
    onKernelState(listener) {
      let unsubscribe: (() => void) | undefined;
      let done = false;
      listener(backend ? backend.kernelState() : failure ? 'dead' : 'starting');
      void settled.then(
        (b) => {
          if (!done) unsubscribe = b.onKernelState(listener);
        },
        () => {
          if (!done) listener('dead');
        },
      );
      return () => {
        done = true;
        unsubscribe?.();
      };
    },
    sendInput: (value) => backend?.sendInput(value),
    restart: async () => (await settled).restart(),
    kernelState: () => backend?.kernelState() ?? (failure ? 'dead' : 'starting'),
    dispose: async () => {
      const b = await settled.catch(() => undefined);
      await b?.dispose();
    },
  };
}
