/**
 * A line-mode front end: reads cells from stdin and prints what the kernel sends. It stands in for
 * the Ink notebook until that lands, and serves piped input (`echo '1+1' | omp-eval`).
 */
import { createInterface } from 'node:readline';
import type { Executor, Session } from '../eval/index.js';
import { type CellLanguage, cellLanguage, cellNeedsMoreInput } from '../eval/index.js';
import { type Streams, writeEvent } from './output.js';

export interface ReplOptions {
  cwd: string;
  /** The language of cells without a `%%js` / `%%py` first line (--lang); default py. */
  language?: CellLanguage;
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
  const rl = createInterface({ input, output: interactive ? streams.out : undefined, terminal: interactive });
  let buffer: string[] = [];
  let running: Promise<unknown> = Promise.resolve();
  let busy = false;
  let exitCode = 0;
  let count = 0;
  const prompt = () => {
    if (!interactive) return;
    rl.setPrompt(buffer.length ? '   ...: ' : `In [${count + 1}]: `);
    rl.prompt();
  };
  const runCell = async (code: string) => {
    const [result] = await session.run([cellLanguage(code, language)], {
      defaultTimeout: opts.timeout ?? null,
      collectOutput: false,
      // A cell is not run again after its kernel died: that would repeat its side effects.
      retryOnDeath: false,
      onEvent: (_, event) => writeEvent(event, streams),
    });
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
  rl.on('line', (line) => {
    buffer.push(line);
    const code = buffer.join('\n');
    // An empty line ends a cell unless brackets (or a js template literal) are still open.
    if (cellNeedsMoreInput(code, language, { lines: true })) return prompt();
    buffer = [];
    if (!code.trim()) return prompt();
    busy = true;
    rl.pause();
    running = running
      .then(() => runCell(code))
      .finally(() => {
        busy = false;
        rl.resume();
        prompt();
      });
  });
  prompt();
  await new Promise<void>((resolve) => rl.once('close', resolve));
  const rest = buffer.join('\n');
  if (rest.trim()) running = running.then(() => runCell(rest));
  await running;
  await session.release();
  return exitCode;
}
