import { afterEach } from 'vitest';
import { createExecutor, type Executor, type ExecutorOptions } from '../../src/eval/index.js';

const executors: Executor[] = [];

/** A real executor, disposed (all kernels shut down) after the test. */
export function makeExecutor(opts: ExecutorOptions = {}): Executor {
  const executor = createExecutor(opts);
  executors.push(executor);
  return executor;
}

afterEach(async () => {
  await Promise.all(executors.splice(0).map((e) => e.dispose()));
});
