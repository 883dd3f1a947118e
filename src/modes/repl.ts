/**
 * The line mode: reads cells from stdin and prints what the kernel sends. It serves piped input
 * (`echo '1+1' | omp-eval`). Lines are read one at a time: whether the lines so far make a cell
 * is the kernel's answer (Session.isComplete), asked once the cell before has run.
 */
import { createInterface } from 'node:readline';
import type { Executor, Session } from '../eval/index.js';
import { cellCompleteness, cellLanguage, type Language, needsMoreLines } from '../eval/index.js';
import { type Streams, writeBackground, writeEvent } from './output.js';

export interface ReplOptions {
  cwd: string;
  /** The language of cells without a `%%js` / `%%py` first line (--lang); default py. */
  language?: Language;
  /** Seconds per cell (--timeout); none by default. */
  timeout?: number;
  input?: NodeJS.ReadableStream;
  streams?: Streams;
}

export async function runRepl(executor: Executor, opts: ReplOptions): Promise<number> {
  const streams = opts.streams ?? { out: process.stdout, err: process.stderr };
  const input = opts.input ?? process.stdin;
  const interactive = input === process.stdin && process.stdin.isTTY === true;
  const language = opts.language ?? 'py';
  const session: Session = await executor.session({
    id: 'repl',
    cwd: opts.cwd,
    requirePython: language === 'py',
  });
  const stopBackground = writeBackground(session, streams);
  const rl = createInterface({ input, output: interactive ? streams.out : undefined, terminal: interactive });
  let buffer: string[] = [];
  let busy = false;
  let exitCode = 0;
  let count = 0;
  const prompt = () => {
    if (!interactive) return;
    rl.setPrompt(buffer.length ? '   ...: ' : `In [${count + 1}]: `);
    rl.prompt();
  };
  const runCell = async (code: string) => {
    busy = true;
    const [result] = await session.run([cellLanguage(code, language)], {
      defaultTimeout: opts.timeout ?? null,
      collectOutput: false,
      // A cell is not run again after its kernel died: that would repeat its side effects.
      retryOnDeath: false,
      onEvent: (_, event) => writeEvent(event, streams),
    });
    busy = false;
    if (result?.executionCount) count = result.executionCount;
    if (result && result.status !== 'ok') exitCode = 1;
  };
  rl.on('SIGINT', () => {
    if (busy) {
      session.interrupt();
    } else if (buffer.length) {
      buffer = [];
      streams.out.write('\n');
      prompt();
    } else rl.close();
  });
  // The kernel answers only once it runs: it is started with the first line (a kernel that cannot
  // start leaves the local rules to answer, and its first cell says why).
  let started: Promise<void> | undefined;
  const ask = async (code: string, lang: Language) => {
    started ??= session.start(language).catch(() => {});
    await started;
    return session.isComplete(code, lang);
  };
  prompt();
  // One line at a time: the answer for the lines so far comes from the kernel, once it is idle.
  for await (const line of rl) {
    buffer.push(line);
    const code = buffer.join('\n');
    if (needsMoreLines(await cellCompleteness(code, language, ask, { lines: true }))) {
      prompt();
      continue;
    }
    buffer = [];
    if (code.trim()) await runCell(code);
    prompt();
  }
  const rest = buffer.join('\n');
  if (rest.trim()) await runCell(rest);
  await session.release();
  stopBackground();
  return exitCode;
}
