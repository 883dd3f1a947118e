/**
 * Starts the notebook in the terminal and owns its one shutdown path: unmount Ink (restoring the
 * terminal), then shut the kernels down; SIGTERM and SIGHUP take the same path.
 *
 * The prompt is drawn at once: the executor's session (probing the interpreter) and the kernel
 * start behind it, and cells typed meanwhile run when the kernel is ready.
 */
import {
  ArtifactFile,
  type Executor,
  envFilterLabel,
  type Language,
  perfOff,
  sandboxLabel,
} from '../eval/index.js';
import type { NotebookBackend } from './backend.js';
import type { ImageMode } from './rendering/images.js';
import type { IdleCollector } from './runtime/memory.js';
import { EarlyInput } from './terminal/earlyInput.js';
import { BRACKETED_PASTE_OFF, BRACKETED_PASTE_ON } from './terminal/terminalModes.js';

export interface NotebookOptions {
  cwd: string;
  images: ImageMode;
  /** Seconds per cell (--timeout); none by default. */
  timeout?: number;
  /** The language of cells without a `%%js` / `%%py` line (--lang). */
  language?: Language;
  /** The backend with `/serve` (src/modes/serve, made by the command line: the notebook knows no MCP). */
  serve?: (backend: NotebookBackend) => NotebookBackend;
}

export async function runNotebook(executor: Executor, opts: NotebookOptions): Promise<number> {
  // Raw input from the start: keys typed while the notebook starts, or as soon as its prompt is
  // drawn (with an idle kernel, in the first frame), must not meet the terminal's line discipline,
  // which echoes them and turns Enter into a newline, before the key handler's effect would turn
  // raw mode on. (Ink turns it off when the notebook ends; Node restores the terminal at exit.)
  if (process.stdin.isTTY) process.stdin.setRawMode(true);
  // Keys typed before the prompt is drawn are kept for it (terminal/earlyInput.ts).
  const early = process.stdin.isTTY ? new EarlyInput(process.stdin) : undefined;
  // Before the notebook's libraries load (their load is what grows the young generation first).
  const memory = await tuneRuntime();
  const { resolve } = await import('node:path');
  const language = opts.language ?? 'py';
  // The session opens (the interpreter is probed) while the terminal is asked and Ink loads.
  const { executorBackend, pendingBackend } = await import('./backend.js');
  const pending = pendingBackend(
    executorBackend(executor, {
      cwd: opts.cwd,
      ...(opts.timeout !== undefined ? { timeout: opts.timeout } : {}),
      language,
      columns: () => process.stdout.columns,
    }),
    {
      cwd: resolve(opts.cwd),
      language,
      mode: executor.settings['python.kernelMode'],
      env: envFilterLabel(executor.settings['env.filter'] ?? true),
      ...(sandboxLabel(executor.sandbox, executor.jupyter)
        ? { sandbox: sandboxLabel(executor.sandbox, executor.jupyter) }
        : {}),
      ...(executor.jupyter && language === 'py' ? { jupyter: executor.jupyter } : {}),
    },
  );
  const backend = opts.serve ? opts.serve(pending) : pending;
  // The kernel starts while Ink loads (the hook that shows its state joins this start; a failure
  // is reported there).
  backend.start().catch(() => {});
  return showNotebook(backend, opts.images, early, memory);
}

/**
 * The notebook on a backend made elsewhere: a followed agent's session (`omp-eval attach`). It
 * ends when the person leaves (Ctrl-D) or when the backend ends on its own (`onEnded`, once what
 * came before was shown: hooks/useAgentCells.ts).
 */
export async function runAttachedNotebook(
  backend: NotebookBackend,
  opts: { images: ImageMode },
): Promise<number> {
  if (process.stdin.isTTY) process.stdin.setRawMode(true);
  const early = process.stdin.isTTY ? new EarlyInput(process.stdin) : undefined;
  return showNotebook(backend, opts.images, early, await tuneRuntime());
}

/**
 * The process's tuning (src/tui/runtime), each part unless OMP_EVAL_PERF_OFF names it (`jit`,
 * `memory`: docs/performance.md). Returns the collector the app calls when it is idle.
 */
async function tuneRuntime(): Promise<IdleCollector> {
  const memory = await import('./runtime/memory.js');
  if (!perfOff('jit')) (await import('./runtime/jit.js')).limitInlining();
  if (perfOff('memory')) return memory.idleCollector(() => {});
  memory.capYoungGeneration();
  return memory.idleCollector(memory.whenGrown(memory.compactingCollection()));
}

/** Draws the notebook on `backend` until it ends; one shutdown path. */
async function showNotebook(
  backend: NotebookBackend,
  images: ImageMode,
  early: EarlyInput | undefined,
  memory: IdleCollector,
): Promise<number> {
  const opts = { images };
  const {
    chalk,
    render,
    React,
    App,
    images: imageModes,
    historyPath,
    queryImageProtocol,
  } = await loadFrontEnd();
  if (process.env.NO_COLOR) chalk.level = 0; // https://no-color.org
  const color = chalk.level > 0;
  let imageMode = imageModes.resolveImageMode(opts.images, process.env, color);
  // `auto`: the terminal itself says whether it speaks kitty's or iTerm2's protocol.
  if (opts.images === 'auto' && color && !process.env.TMUX && early) {
    imageMode = (await queryImageProtocol(early, process.stdout)) ?? imageMode;
  }
  let finish!: () => void;
  const finished = new Promise<void>((done) => {
    finish = done;
  });
  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      process.stdout.write(BRACKETED_PASTE_OFF);
      instance.unmount();
      await backend.dispose();
      finish();
    })();
    return stopping;
  };
  early?.release();
  process.stdout.write(BRACKETED_PASTE_ON);
  const instance = render(
    React.createElement(App, {
      backend,
      imageMode,
      color,
      historyFile: historyPath(),
      onExit: () => void stop(),
      memory,
    }),
    { exitOnCtrlC: false, patchConsole: false },
  );
  // The artifacts' folder is tidied once the first frame is out, not in the middle of the first
  // cell that writes a spill file.
  setTimeout(() => ArtifactFile.tidy(), 500).unref();
  const unwatch = watchTheEnd(stop);
  await finished;
  unwatch();
  return 0;
}

/** The notebook's libraries, loaded while the kernel starts. */
async function loadFrontEnd() {
  // React's production build, whatever NODE_ENV says: the development build costs memory and CPU on
  // every frame, and bundled Ink has only the production reconciler. React reads NODE_ENV when it
  // loads; the variable is set back then (kernels get the environment omp-eval was started with).
  const nodeEnv = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  const [{ default: chalk }, { render }, React, { App }, images, { historyPath }, { queryImageProtocol }] =
    await Promise.all([
      import('chalk'),
      import('./ink.js'),
      import('react'),
      import('./App.js'),
      import('./rendering/images.js'),
      import('./session/history.js'),
      import('./terminal/terminalQuery.js'),
    ]).finally(() => {
      if (nodeEnv === undefined) delete process.env.NODE_ENV;
      else process.env.NODE_ENV = nodeEnv;
    });
  return { chalk, render, React, App, images, historyPath, queryImageProtocol };
}

/**
 * SIGTERM, SIGHUP and a terminal that goes away end the notebook through `stop`, with the exit
 * code a shell reports for the signal. Returns what stops watching.
 */
function watchTheEnd(stop: () => Promise<void>): () => void {
  // 128 + the signal's number, as a shell reports a program the signal ended.
  const onSignal = (signal: NodeJS.Signals) => {
    void stop().then(() => process.exit(signal === 'SIGHUP' ? 129 : 143));
  };
  process.once('SIGTERM', onSignal);
  process.once('SIGHUP', onSignal);
  // A terminal that goes away without a SIGHUP (the notebook is not in its session: under `su`, a
  // wrapper) shows as the end of its input or an error reading or writing it: end as on a hangup.
  const onTerminalGone = () => onSignal('SIGHUP');
  // (`on`, not `once`: every later write to a terminal that is gone fails too, and an 'error'
  // nobody listens to would end the process before its kernels are shut down.)
  process.stdin.once('end', onTerminalGone);
  process.stdin.on('error', onTerminalGone);
  process.stdout.on('error', onTerminalGone);
  return () => {
    process.off('SIGTERM', onSignal);
    process.off('SIGHUP', onSignal);
    process.stdin.off('end', onTerminalGone);
    process.stdin.off('error', onTerminalGone);
    process.stdout.off('error', onTerminalGone);
  };
}
