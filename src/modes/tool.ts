/**
 * `omp-eval tool`: reads the eval tool's params as JSON on stdin (at most MAX_INPUT_BYTES),
 * prints the result as one JSON object on stdout. Exit 0 when the tool ran (cell failures are in
 * the result), 2 on bad input, 130 when interrupted (the result of what ran is still printed),
 * 1 on any other error.
 */
import type { Executor } from '../eval/index.js';
import { checkCwd, runEvalTool, ToolInputError } from '../eval/index.js';

/** The most the tool reads from stdin: cells of code, never data. */
export const MAX_INPUT_BYTES = 64 * 1024 * 1024;

/** The whole of a stream as UTF-8, or undefined when it holds more than `max` bytes (then it is not read on). */
async function readBounded(stream: NodeJS.ReadableStream, max: number): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
    size += buffer.length;
    if (size > max) {
      (stream as NodeJS.ReadableStream & { destroy?: () => void }).destroy?.();
      return undefined;
    }
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export async function runToolCommand(
  executor: Executor,
  opts: { cwd: string; stdin?: NodeJS.ReadableStream; out?: NodeJS.WritableStream },
): Promise<number> {
  const out = opts.out ?? process.stdout;
  const print = (value: unknown) => out.write(`${JSON.stringify(value)}\n`);
  /** Bad input: what is wrong, as the tool's result says it, and exit 2. */
  const badInput = (problems: string[], error = problems.join('; ')) => {
    print({ error, problems, isError: true });
    return 2;
  };
  const text = await readBounded(opts.stdin ?? process.stdin, MAX_INPUT_BYTES);
  if (text === undefined) {
    return badInput([
      `the input is larger than ${MAX_INPUT_BYTES / 1024 / 1024} MiB; the eval tool reads at most that much (cells of code, not data: let a cell read large data from a file)`,
    ]);
  }
  let input: unknown;
  try {
    // (A byte-order mark, as some Windows editors and PowerShell write one, is no part of the JSON.)
    input = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (err) {
    return badInput([`the input is not valid JSON: ${(err as Error).message}`]);
  }
  // Nothing can run in a working directory that is not one: bad input, as for run (exit 2).
  try {
    checkCwd(opts.cwd);
  } catch (err) {
    return badInput([(err as Error).message]);
  }
  // Ctrl-C interrupts the running cell; the cells' results are printed as usual.
  const controller = new AbortController();
  const onSigint = () => controller.abort();
  process.on('SIGINT', onSigint);
  try {
    const result = await runEvalTool(input, {
      executor,
      cwd: opts.cwd,
      id: `tool-${process.pid}`,
      signal: controller.signal,
      // (A kernel on a Jupyter server that omp-eval attached to by id is not its own to end: it
      // and its state live on.)
      kernelsEndWithCall: !(executor.settings['jupyter.url'] && executor.settings['jupyter.kernelId']),
    });
    print(result);
    return controller.signal.aborted ? 130 : 0;
  } catch (err) {
    if (err instanceof ToolInputError) return badInput(err.problems, err.message);
    print({ error: (err as Error).message, isError: true });
    return 1;
  } finally {
    process.off('SIGINT', onSigint);
  }
}
