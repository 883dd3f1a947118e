import type { CellResult } from '../../src/eval/index.js';

/** A cell result that ended ok with no output, with `over` on top. */
export function cellResult(over: Partial<CellResult> = {}): CellResult {
  return {
    index: 0,
    language: 'py',
    status: 'ok',
    exitCode: 0,
    durationMs: 1,
    timedOut: false,
    kernelKilled: false,
    retried: false,
    text: '',
    images: [],
    json: [],
    statusEvents: [],
    notices: [],
    ...over,
  };
}
