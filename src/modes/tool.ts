/**
 * `omp-eval tool`: reads the eval tool's params as JSON on stdin, prints the result as one JSON
 * object on stdout. Exit 0 when the tool ran (cell failures are in the result), 2 on bad input,
 * 130 when interrupted (the result of what ran is still printed), 1 on any other error.
 */
import type { Executor } from '../eval/index.js';
import { runEvalTool, ToolInputError } from '../eval/index.js';
import { readStream } from './output.js';

export async function runToolCommand(
  executor: Executor,
  opts: { cwd: string; stdin?: NodeJS.ReadableStream; out?: NodeJS.WritableStream },
): Promise<number> {
  const out = opts.out ?? process.stdout;
  const print = (value: unknown) => out.write(`${JSON.stringify(value)}\n`);
  const text = await readStream(opts.stdin ?? process.stdin);
  let input: unknown;
  try {
    input = JSON.parse(text);
  } catch (err) {
    print({ error: `the input is not valid JSON: ${(err as Error).message}`, isError: true });
    return 2;
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
    });
    print(result);
    return controller.signal.aborted ? 130 : 0;
  } catch (err) {
    if (err instanceof ToolInputError) {
      print({ error: err.message, problems: err.problems, isError: true });
      return 2;
    }
    print({ error: (err as Error).message, isError: true });
    return 1;
  } finally {
    process.off('SIGINT', onSigint);
  }
}
