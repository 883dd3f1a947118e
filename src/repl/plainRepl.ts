/**
 * A line-mode front end: reads cells from stdin and prints what the kernel sends. It stands in for
 * the Ink notebook until that lands, and serves piped input (`echo '1+1' | omp-eval`).
 */
import { createInterface } from 'node:readline';
import { describeExit, KernelStartError, PythonKernel } from '../eval/kernel.js';
import type { Frame } from '../eval/protocol.js';
import { PythonNotFoundError } from '../eval/runtime.js';

export interface PlainReplOptions {
  python?: string;
  cwd: string;
  input?: NodeJS.ReadableStream;
  output?: NodeJS.WritableStream;
  errorOutput?: NodeJS.WritableStream;
}

/** True when `code` still needs lines: an open bracket or a block header awaiting its body. */
export function needsMoreInput(code: string): boolean {
  let depth = 0;
  let quote: string | undefined;
  for (let i = 0; i < code.length; i++) {
    const ch = code[i];
    if (quote) {
      if (ch === '\\') i++;
      else if (code.startsWith(quote, i)) {
        i += quote.length - 1;
        quote = undefined;
      }
    } else if (ch === '#') {
      while (i < code.length && code[i] !== '\n') i++;
    } else if (ch === '"' || ch === "'") {
      quote = code.startsWith(ch.repeat(3), i) ? ch.repeat(3) : ch;
      i += quote.length - 1;
    } else if (ch === '(' || ch === '[' || ch === '{') depth++;
    else if (ch === ')' || ch === ']' || ch === '}') depth--;
  }
  if (depth > 0 || (quote && quote.length === 3)) return true;
  const last = code.trimEnd().split('\n').pop() ?? '';
  return last.endsWith(':') || last.endsWith('\\') || (code.includes('\n') && !code.endsWith('\n'));
}

function render(frame: Frame, out: NodeJS.WritableStream, err: NodeJS.WritableStream) {
  switch (frame.type) {
    case 'stdout':
      out.write(frame.data);
      break;
    case 'stderr':
      err.write(frame.data);
      break;
    case 'result':
    case 'display': {
      const text = frame.bundle['text/plain'];
      out.write(`${typeof text === 'string' ? text : JSON.stringify(frame.bundle)}\n`);
      break;
    }
    case 'error':
      err.write(`${frame.traceback.join('\n')}\n`);
      break;
    default:
      break;
  }
}

export async function runPlainRepl(opts: PlainReplOptions): Promise<number> {
  const out = opts.output ?? process.stdout;
  const err = opts.errorOutput ?? process.stderr;
  const input = opts.input ?? process.stdin;
  const interactive = input === process.stdin && process.stdin.isTTY === true;
  let kernel: PythonKernel;
  try {
    kernel = await PythonKernel.start({ python: opts.python, cwd: opts.cwd });
  } catch (e) {
    const message = e instanceof PythonNotFoundError || e instanceof KernelStartError ? e.message : String(e);
    err.write(`omp-eval: ${message}\n`);
    return 1;
  }
  kernel.on('background', (frame: Frame) => render(frame, out, err));
  const rl = createInterface({ input, output: interactive ? out : undefined, terminal: interactive });
  const prompt = () => {
    if (interactive) {
      rl.setPrompt(buffer.length ? '...: ' : `In [${kernel.executionCount + 1}]: `);
      rl.prompt();
    }
  };
  let buffer: string[] = [];
  let running: Promise<unknown> = Promise.resolve();
  let exitCode = 0;
  const runCell = async (code: string) => {
    if (kernel.state === 'dead') {
      err.write('omp-eval: the kernel is gone; restarting it (state was lost)\n');
      kernel = await PythonKernel.start({ python: opts.python, cwd: opts.cwd });
      kernel.on('background', (frame: Frame) => render(frame, out, err));
    }
    const outcome = await kernel.execute(code, { onFrame: (f) => render(f, out, err) });
    if (outcome.status === 'error') exitCode = 1;
    if (outcome.exit && !outcome.error) err.write(`omp-eval: kernel ended (${describeExit(outcome.exit)})\n`);
    else if (outcome.exit && outcome.error?.ename === 'KernelDied') err.write(`${outcome.error.evalue}\n`);
  };
  rl.on('SIGINT', () => {
    if (!kernel.interrupt()) {
      if (buffer.length) {
        buffer = [];
        out.write('\n');
        prompt();
      } else rl.close();
    }
  });
  rl.on('line', (line) => {
    buffer.push(line);
    const code = buffer.join('\n');
    const more = line !== '' && needsMoreInput(code);
    if (more) return prompt();
    buffer = [];
    if (!code.trim()) return prompt();
    rl.pause();
    running = running
      .then(() => runCell(code))
      .finally(() => {
        rl.resume();
        prompt();
      });
  });
  prompt();
  await new Promise<void>((resolve) => rl.once('close', resolve));
  const rest = buffer.join('\n');
  if (rest.trim()) running = running.then(() => runCell(rest));
  await running;
  await kernel.shutdown();
  return exitCode;
}
