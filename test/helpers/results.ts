import { type CellResult, cellResultOf } from '../../src/eval/index.js';

/** A cell result that ended ok with no output, with `over` on top. */
export function cellResult(over: Partial<CellResult> = {}): CellResult {
  return cellResultOf({ index: 0, language: 'py', status: 'ok', exitCode: 0, durationMs: 1, ...over });
}
