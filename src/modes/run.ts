/**
 * `omp-eval run FILE|-`: runs a script cell by cell (split on `# %%`) in one kernel, streaming
 * each cell's output. Exit code: 0 all cells ok, 1 a cell failed, 130 interrupted.
 */
import { readFileSync } from 'node:fs';
import type { Executor } from '../eval/executor.js';
import { type CellLanguage, cellLanguage, splitCells } from '../eval/script.js';
import { readStream, type Streams, writeEvent } from './output.js';

export interface RunScriptOptions {
  file: string;
  cwd: string;
  /** Seconds per cell; undefined for no timeout. */
  timeout?: number;
  /** The script's language (--lang); default: js for .js/.mjs/.cjs files, else py. */
  language?: CellLanguage;
  streams?: Streams;
  stdin?: NodeJS.ReadableStream;
}

/** Waits for what the script left running in a kernel (silently: no result is shown). */
const DRAIN = {
  js: 'await __omp_drain__()',
  py: '(lambda th: [t.join() for t in th.enumerate() if not t.daemon and t is not th.main_thread()])(__import__("threading"));',
};

export async function runScript(executor: Executor, opts: RunScriptOptions): Promise<number> {
  const streams = opts.streams ?? { out: process.stdout, err: process.stderr };
  let source: string;
  try {
    source =
      opts.file === '-' ? await readStream(opts.stdin ?? process.stdin) : readFileSync(opts.file, 'utf8');
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    const reason = e.code === 'ENOENT' ? 'no such file' : e.code === 'EISDIR' ? 'is a directory' : e.message;
    streams.err.write(`omp-eval run: cannot read ${opts.file}: ${reason}\n`);
    return 2;
  }
  const language = opts.language ?? (/\.[cm]?js$/i.test(opts.file) ? 'js' : 'py');
  const cells = splitCells(source, language);
  if (!cells.length) return 0;
  const session = await executor.session({
    id: `run-${process.pid}`,
    cwd: opts.cwd,
    requirePython: language === 'py',
  });
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
    const results = await session.run(
      cells.map((c) => ({ ...cellLanguage(c.code, language), ...(c.title ? { title: c.title } : {}) })),
      {
        signal: controller.signal,
        defaultTimeout: opts.timeout ?? null,
        // A cell is not run again after its kernel died: that would repeat its side effects.
        retryOnDeath: false,
        collectOutput: false,
        onEvent: (index, event) => {
          if (event.kind === 'started' && headers) {
            const cell = cells[index];
            streams.err.write(
              `\x1b[2m── [${index + 1}/${cells.length}]${cell?.title ? ` ${cell.title}` : ''} (line ${cell?.line}) ──\x1b[0m\n`,
            );
          }
          return writeEvent(event, streams);
        },
      },
    );
    if (interrupted) return 130;
    const failed = results.find((r) => r.status !== 'ok' && r.status !== 'skipped');
    if (failed) {
      const cell = cells[failed.index];
      const what = failed.timedOut ? 'timed out' : failed.status === 'cancelled' ? 'was cancelled' : 'failed';
      const skipped = results.filter((r) => r.status === 'skipped').length;
      streams.err.write(
        `omp-eval run: cell ${failed.index + 1} of ${cells.length} (line ${cell?.line}) ${what}` +
          `${skipped ? `; ${skipped} later cell${skipped > 1 ? 's' : ''} not run` : ''}\n`,
      );
      return 1;
    }
    // Like `node script.js` and `python script.py`: the script ends when its timers, sockets and
    // (non-daemon) threads are done, and what they print is shown.
    for (const lang of ['js', 'py'] as const) {
      if (!session.kernelOf(lang) || interrupted) continue;
      const [drained] = await session.run([{ language: lang, code: DRAIN[lang] }], {
        signal: controller.signal,
        defaultTimeout: null,
        retryOnDeath: false,
        collectOutput: false,
        onEvent: (_, event) => writeEvent(event, streams),
      });
      if (interrupted) return 130;
      if (drained?.status !== 'ok') return 1;
    }
    return 0;
  } finally {
    process.off('SIGINT', onSigint);
    await session.release();
  }
}
