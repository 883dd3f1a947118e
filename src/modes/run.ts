/**
 * `omp-eval run FILE|-`: runs a script cell by cell (split on `# %%`) in one kernel, streaming
 * each cell's output. Exit code: 0 all cells ok, 1 a cell failed, 130 interrupted. The cells'
 * input() and sys.stdin read run's own stdin, as `python FILE` would (`run -` has read it all;
 * a kernel on a Jupyter server gets none).
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { CellResult, Executor, OutputEvent, Session } from '../eval/index.js';
import {
  cellLanguage,
  checkCwd,
  type Language,
  notebookCells,
  oneLine,
  type ScriptCell,
  splitCells,
} from '../eval/index.js';
import { readStream, type Streams, writeBackground, writeEvent } from './output.js';
import { endedReader, type LineReader, lineReader } from './stdinLines.js';

export interface RunScriptOptions {
  file: string;
  /** The script's arguments (`sys.argv[1:]`, `process.argv.slice(2)`). */
  args?: string[];
  cwd: string;
  /** Seconds per cell; undefined for no timeout. */
  timeout?: number;
  /** The script's language (--lang); default: js for .js/.mjs/.cjs files, else py. */
  language?: Language;
  streams?: Streams;
  stdin?: NodeJS.ReadableStream;
}

/**
 * Waits for what the script left running in a kernel (silently: no result is shown). Python runs
 * the hooks it runs at exit before joining threads (they shut thread pools down).
 */
const DRAIN = {
  // (its value is the process.exitCode the script set, which node ends with)
  js: '(await __omp_drain__(), process.exitCode)',
  py: '(lambda th: ([f() for f in list(getattr(th, "_threading_atexits", []))], [t.join() for t in th.enumerate() if not t.daemon and t is not th.main_thread()]))(__import__("threading"));',
};

type ExitError = { ename: string; evalue: string; exitCode?: number; exitMessage?: string };

/**
 * The exit code a script asked for with process.exit() / sys.exit(), else undefined. The kernel
 * works it out as its interpreter would (sys.exit(False) is 0, sys.exit("3") is 1); a kernel that
 * does not (a Jupyter server's) is read from the exception's text.
 */
function requestedExit(error: ExitError | undefined): number | undefined {
  if (error?.ename !== 'ProcessExit' && error?.ename !== 'SystemExit') return undefined;
  if (error.exitCode !== undefined) return error.exitCode;
  if (error.ename === 'ProcessExit' || error.evalue === '' || error.evalue === 'None') return 0;
  return /^-?\d+$/.test(error.evalue) ? Number(error.evalue) & 0xff : 1;
}

/** What python prints on stderr as a SystemExit ends it: the code, unless it is None or an integer. */
function exitMessage(error: ExitError): string | undefined {
  if (error.ename !== 'SystemExit') return undefined;
  if (error.exitCode !== undefined) return error.exitMessage;
  return requestedExit(error) === 1 && error.evalue !== '1' ? error.evalue : undefined;
}

/**
 * The status python (or node) ends a script with where this cell failed: 130 for a
 * KeyboardInterrupt the code raised, the kernel's own status when it ended by itself
 * (`os._exit(7)`: 7; a segfault: 139), else 1 (also after a timeout: no interpreter has those).
 */
function failedExit(result: CellResult): number {
  if (result.timedOut || result.kernelKilled) return 1;
  if (result.error?.ename === 'KeyboardInterrupt') return 130;
  if (result.error?.ename === 'KernelDied' && result.exitCode !== null && result.exitCode >= 0)
    return result.exitCode;
  return 1;
}

/** Where a cell starts in the script, as the header and the failure line say it: ` (line 12)`. */
function lineNote(cell: ScriptCell | undefined): string {
  return cell?.line ? ` (line ${cell.line})` : '';
}

/** Prints an event, except the traceback of a requested exit (python prints only its message). */
function writeRunEvent(event: OutputEvent, streams: Streams) {
  if (event.kind === 'error' && requestedExit(event) !== undefined) {
    const message = exitMessage(event);
    return message !== undefined ? streams.err.write(`${message}\n`) : true;
  }
  return writeEvent(event, streams);
}

/** The script's text, or undefined (said on stderr) when it cannot be read. */
async function readScript(opts: RunScriptOptions, streams: Streams): Promise<string | undefined> {
  try {
    return opts.file === '-'
      ? await readStream(opts.stdin ?? process.stdin)
      : readFileSync(opts.file, 'utf8');
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    const reason = e.code === 'ENOENT' ? 'no such file' : e.code === 'EISDIR' ? 'is a directory' : e.message;
    streams.err.write(`omp-eval run: cannot read ${opts.file}: ${reason}\n`);
    return undefined;
  }
}

/** Answers the cells' input() from run's stdin (none left after `run -`). */
function stdinAnswers(session: Session, opts: RunScriptOptions, streams: Streams) {
  const stdin = opts.stdin ?? process.stdin;
  const input: LineReader = opts.file === '-' ? endedReader : lineReader(stdin);
  // (The kernels write input()'s prompt themselves: an answer carries the lines that have come,
  // and the next input() may be answered from them without asking.)
  const answer = async (password: boolean) => {
    if (password && (stdin as NodeJS.ReadStream).isTTY)
      streams.err.write('Warning: Password input may be echoed.\n');
    session.sendInput(await input.next());
  };
  return { answer, close: () => input.close() };
}

/**
 * Like `node script.js` and `python script.py`: the script ends when its timers, sockets and
 * (non-daemon) threads are done, and what they print is shown. Returns the script's exit status.
 */
async function waitForTheRest(
  session: Session,
  opts: { signal: AbortSignal; timeout: number | undefined; streams: Streams },
): Promise<number> {
  const { signal, streams } = opts;
  let exitCode = 0;
  for (const lang of ['js', 'py'] as const) {
    if (!session.kernelOf(lang) || signal.aborted) continue;
    const [drained] = await session.run([{ language: lang, code: DRAIN[lang] }], {
      signal,
      defaultTimeout: opts.timeout ?? null,
      retryOnDeath: false,
      collectOutput: false,
      // The wait's own traceback and notices (Ctrl-C, a timeout) would be about omp-eval's code.
      onEvent: (_, event) => {
        if (event.kind === 'result') {
          const code = Number(event.text);
          if (Number.isInteger(code)) exitCode = code & 0xff;
          return true;
        }
        return event.kind === 'error' || event.kind === 'notice' ? true : writeRunEvent(event, streams);
      },
    });
    if (signal.aborted) return 130;
    const drainExit = requestedExit(drained?.error);
    if (drainExit !== undefined) return drainExit;
    if (drained?.status !== 'ok') {
      streams.err.write(
        `omp-eval run: ${drained?.timedOut ? "the script's background work timed out" : (drained?.error?.evalue ?? "the script's background work failed")}\n`,
      );
      return 1;
    }
  }
  return exitCode;
}

/** The requests of the script's cells: tracebacks name the script's file and line, as python's and node's. */
function cellRequests(cells: ScriptCell[], language: Language) {
  return cells.map((c) => ({
    ...cellLanguage(c.code, language),
    ...(c.title ? { title: c.title } : {}),
    ...(c.line ? { scriptLine: c.line } : {}),
  }));
}

export async function runScript(executor: Executor, opts: RunScriptOptions): Promise<number> {
  const streams = opts.streams ?? { out: process.stdout, err: process.stderr };
  const source = await readScript(opts, streams);
  if (source === undefined) return 2;
  let language = opts.language ?? (/\.[cm]?js$/i.test(opts.file) ? 'js' : 'py');
  let cells: ScriptCell[];
  if (/\.ipynb$/i.test(opts.file)) {
    // A notebook: its code cells, in its kernel's language (markdown cells are not run).
    try {
      const notebook = notebookCells(source, opts.language);
      cells = notebook.cells;
      language = opts.language ?? notebook.language;
    } catch (err) {
      streams.err.write(`omp-eval run: ${opts.file}: ${(err as Error).message}\n`);
      return 2;
    }
  } else cells = splitCells(source, language);
  if (!cells.length) return 0;
  try {
    checkCwd(opts.cwd);
  } catch (err) {
    streams.err.write(`omp-eval run: ${(err as Error).message}\n`);
    return 2; // as a script that cannot be read: nothing ran
  }
  const session = await executor.session({
    id: `run-${process.pid}`,
    cwd: opts.cwd,
    requirePython: language === 'py',
    // As `python script.py` / `node script.js`: argv names the script as given (`-` for stdin),
    // __file__ is its full path and its folder comes first on sys.path.
    script: {
      argv: [opts.file, ...(opts.args ?? [])],
      path: opts.file === '-' ? '<stdin>' : resolve(opts.file),
    },
  });
  const stopBackground = writeBackground(session, streams);
  const input = stdinAnswers(session, opts, streams);
  let interrupted = false;
  const controller = new AbortController();
  const onSigint = () => {
    if (interrupted) {
      // A second Ctrl-C: stop waiting for the kernel to honour the first.
      void session.restart();
      return;
    }
    interrupted = true;
    controller.abort();
  };
  process.on('SIGINT', onSigint);
  const headers = streams.err === process.stderr && process.stderr.isTTY === true && cells.length > 1;
  try {
    const results = await session.run(cellRequests(cells, language), {
      signal: controller.signal,
      defaultTimeout: opts.timeout ?? null,
      // A cell is not run again after its kernel died: that would repeat its side effects.
      retryOnDeath: false,
      collectOutput: false,
      // (not on a Jupyter server: its input_reply cannot say that the input ended, and a loop
      // reading to the end would read empty lines for ever)
      allowStdin: !executor.jupyter,
      stdinEnds: true,
      onEvent: (index, event) => {
        // (not awaited: a cell that ends while it waits, by a timeout or Ctrl-C, is not held up)
        if (event.kind === 'input_request') return void input.answer(event.password);
        if (event.kind === 'started' && headers) {
          const cell = cells[index];
          streams.err.write(
            `\x1b[2m── [${index + 1}/${cells.length}]${cell?.title ? ` ${oneLine(cell.title)}` : ''}${lineNote(cell)} ──\x1b[0m\n`,
          );
        }
        return writeRunEvent(event, streams);
      },
    });
    if (interrupted) return 130;
    const failed = results.find((r) => r.status !== 'ok' && r.status !== 'skipped');
    // process.exit(n) / sys.exit(n) in a cell ends the script with n, as it would outside.
    const exit = requestedExit(failed?.error);
    if (exit !== undefined) return exit;
    if (failed) {
      const cell = cells[failed.index];
      const what = failed.timedOut
        ? 'timed out'
        : failed.status === 'cancelled'
          ? 'was cancelled'
          : failed.error?.ename === 'KernelDied' && failed.error.exitCode !== undefined
            ? `ended its kernel (exit code ${failed.error.exitCode})`
            : 'failed';
      const skipped = results.filter((r) => r.status === 'skipped').length;
      streams.err.write(
        `omp-eval run: cell ${failed.index + 1} of ${cells.length}${lineNote(cell)} ${what}` +
          `${skipped ? `; ${skipped} later cell${skipped > 1 ? 's' : ''} not run` : ''}\n`,
      );
      return failedExit(failed);
    }
    return await waitForTheRest(session, { signal: controller.signal, timeout: opts.timeout, streams });
  } finally {
    process.off('SIGINT', onSigint);
    input.close();
    // The kernels end while their output is still written: what atexit handlers and
    // process.on('exit') print shows, as at the end of `python` and `node`.
    await Promise.all((['py', 'js'] as const).map((lang) => session.kernelOf(lang)?.shutdown()));
    await session.release();
    stopBackground();
  }
}
