/**
 * The runner, acorn and the transform live in a vm context of their own (issue 17, item 9): what
 * a cell can reach of the kernel is made in the cells' realm, and a cell that breaks the
 * built-ins of its realm does not break the kernel.
 */
import { describe, expect, it } from 'vitest';
import { run, startKernel } from '../helpers/kernel.js';

const plain = (bundle: Record<string, unknown> | undefined) => bundle?.['text/plain'];

describe('js kernel: the runner out of reach', () => {
  it("every kernel function a cell can reach is of the cell's realm", async () => {
    const k = await startKernel({ language: 'js' });
    const r = await run(
      k,
      [
        'const reachable = [',
        '  process.stdout.write, process.stderr.write, Error.prepareStackTrace, display, input, require,',
        '  ...process.listeners("uncaughtException"), ...process.listeners("unhandledRejection"),',
        '  ...process._getActiveHandles().flatMap((h) => h.listeners ? h.eventNames().flatMap((e) => h.listeners(e)) : []),',
        '];',
        'const foreign = reachable.filter((f) => typeof f === "function" && !(f instanceof Function));',
        '[reachable.length > 8, foreign.length]',
      ].join('\n'),
    );
    expect(plain(r.result)).toBe('[ true, 0 ]');
    // Nor are the runner's modules (acorn and the transform among them) in the cells' module cache.
    const cached = await run(
      k,
      'Object.keys(require.cache).filter((p) => /acorn|transform|serve|runner/.test(p))',
    );
    expect(plain(cached.result)).toBe('[]');
    // An error the runner raises (the transform's) is of the cell's realm too.
    await run(k, 'export const a = 1');
    expect(
      plain((await run(k, '[_error instanceof SyntaxError, _error.constructor === SyntaxError]')).result),
    ).toBe('[ true, true ]');
  });

  it("a cell that breaks its realm's built-ins does not break the kernel", async () => {
    const k = await startKernel({ language: 'js' });
    const broken = await run(
      k,
      [
        // (not what Node's own util.inspect needs: that would break Node's REPL as well)
        'Array.prototype.map = null; JSON.stringify = () => "{}"; Object.keys = null;',
        'Object.defineProperty = null; Promise.prototype.then = null; String.prototype.split = null;',
        '"broken"',
      ].join('\n'),
    );
    expect(plain(broken.result)).toBe("'broken'");
    const after = await run(
      k,
      'process.stdout.write("still printing\\n"); await null; display("shown"); [1, 2]',
    );
    expect(after.stdout).toBe('still printing\n');
    expect(plain(after.result)).toBe('[ 1, 2 ]');
    expect(after.frames.filter((f) => f.type === 'display')).toHaveLength(1);
    const error = await run(k, 'null.x');
    expect(error.outcome.error?.ename).toBe('TypeError');
    expect(error.outcome.error?.traceback).toEqual([
      "TypeError: Cannot read properties of null (reading 'x')",
      '    at Cell In[3]:1:6',
    ]);
  });
});
