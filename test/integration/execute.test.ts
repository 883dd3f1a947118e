import { describe, expect, it } from 'vitest';
import { run, startKernel } from '../helpers/kernel.js';

describe('kernel: execution and results', () => {
  it('counts executions from 1 (init and prelude use none) and silent cells use none', async () => {
    const k = await startKernel();
    const first = await run(k, 'a = 1');
    expect(first.outcome.executionCount).toBe(1);
    const silent = await run(k, 'b = 2', { silent: true });
    expect(silent.outcome.executionCount).toBe(1);
    expect((await run(k, 'a + b')).outcome.executionCount).toBe(2);
    const failing = await run(k, '1/0');
    expect(failing.outcome).toMatchObject({ status: 'error', executionCount: 3 });
  });

  it('sends the last expression as a result bundle, with _repr_*_ methods', async () => {
    const k = await startKernel();
    const { result, outcome } = await run(
      k,
      [
        'class Rich:',
        '    def __repr__(self): return "Rich()"',
        '    def _repr_html_(self): return "<b>rich</b>"',
        '    def _repr_markdown_(self): return "**rich**"',
        '    def _repr_png_(self): return b"\\x89PNG"',
        '    def _repr_latex_(self): raise ValueError("no latex")',
        'Rich()',
      ].join('\n'),
    );
    expect(outcome.status).toBe('ok');
    expect(result).toEqual({
      'text/plain': 'Rich()',
      'text/html': '<b>rich</b>',
      'text/markdown': '**rich**',
      'image/png': Buffer.from('\x89PNG', 'latin1').toString('base64'),
    });
  });

  it('shows no result for None, and a trailing ; suppresses it', async () => {
    const k = await startKernel();
    expect((await run(k, 'None')).result).toBeUndefined();
    expect((await run(k, 'print("x")')).result).toBeUndefined();
    expect((await run(k, '1 + 1;')).result).toBeUndefined();
    expect((await run(k, '1 + 1;  # quiet')).result).toBeUndefined();
    expect((await run(k, 'x = 3\nx')).result).toEqual({ 'text/plain': '3' });
    expect((await run(k, '"a;" # ;')).result).toEqual({ 'text/plain': "'a;'" });
  });

  it('keeps _, __ and ___ as the last three results', async () => {
    const k = await startKernel();
    await run(k, '10');
    await run(k, '20');
    await run(k, 'None');
    await run(k, '30');
    const { result } = await run(k, '(_, __, ___)');
    expect(result?.['text/plain']).toBe('(30, 20, 10)');
  });

  it('runs top-level await, and tasks live on across cells', async () => {
    const k = await startKernel();
    const { result } = await run(k, 'import asyncio\nawait asyncio.sleep(0.01)\n6 * 7');
    expect(result?.['text/plain']).toBe('42');
    await run(
      k,
      'async def later():\n    await asyncio.sleep(0.05)\n    return "done"\ntask = asyncio.ensure_future(later())',
    );
    expect((await run(k, 'await task')).result?.['text/plain']).toBe("'done'");
  });

  it('keeps state across cells and reports SystemExit as an error with the kernel alive', async () => {
    const k = await startKernel();
    await run(k, 'import sys\nstate = [1, 2]');
    const exit = await run(k, 'sys.exit(3)');
    expect(exit.outcome.status).toBe('error');
    expect(exit.outcome.error).toMatchObject({ ename: 'SystemExit', evalue: '3' });
    expect(k.state).toBe('idle');
    expect((await run(k, 'state')).result?.['text/plain']).toBe('[1, 2]');
  });

  it('display() sends display frames in order with the output around them', async () => {
    const k = await startKernel();
    const { frames } = await run(k, 'print("before", end="")\ndisplay({"a": 1}, 2)\nprint("after")\n"last"');
    expect(frames.map((f) => f.type)).toEqual([
      'started',
      'stdout',
      'display',
      'display',
      'stdout',
      'result',
      'done',
    ]);
    expect(frames[1]).toMatchObject({ data: 'before' });
    expect(frames[2]).toMatchObject({ bundle: { 'text/plain': "{'a': 1}" } });
  });
});

describe('kernel: errors', () => {
  it('shows the user frames with their source lines and none of the runner', async () => {
    const k = await startKernel();
    await run(k, 'def inner():\n    raise ValueError("bad value")');
    const { outcome } = await run(k, 'x = 1\ninner()');
    expect(outcome.error?.ename).toBe('ValueError');
    expect(outcome.error?.evalue).toBe('bad value');
    const tb = outcome.error?.traceback.join('\n') ?? '';
    expect(tb).toContain('Cell In[2], line 2, in <module>');
    expect(tb).toContain('    inner()');
    expect(tb).toContain('Cell In[1], line 2, in inner');
    expect(tb).toContain('raise ValueError("bad value")');
    expect(tb).not.toMatch(/runner|_run_cell|_execute/);
    expect(tb.split('\n').at(-1)).toBe('ValueError: bad value');
  });

  it('shows a SyntaxError with the caret line', async () => {
    const k = await startKernel();
    const { outcome } = await run(k, 'x = (1 +\n').then(() =>
      run(k, 'print("ok")\nfor x in range(3) print(x)'),
    );
    expect(outcome.error?.ename).toBe('SyntaxError');
    const tb = outcome.error?.traceback ?? [];
    expect(tb[0]).toBe('  Cell In[2], line 2');
    expect(tb[1]).toBe('    for x in range(3) print(x)');
    expect(tb[2]).toMatch(/^\s+\^+$/);
    expect(tb.join('\n')).not.toContain('runner');
  });

  it('shows chained exceptions without runner frames', async () => {
    const k = await startKernel();
    const { outcome } = await run(
      k,
      'try:\n    {}["k"]\nexcept KeyError as e:\n    raise RuntimeError("wrapped") from e',
    );
    const tb = outcome.error?.traceback.join('\n') ?? '';
    expect(tb).toContain("KeyError: 'k'");
    expect(tb).toContain('The above exception was the direct cause');
    expect(tb).toContain('RuntimeError: wrapped');
    expect(tb).not.toContain('runner');
  });
});

describe('kernel: the cells of a script (`omp-eval run`)', () => {
  const script = { path: '/work/project/job.py', argv: ['job.py'] };

  it('name the script and its lines in tracebacks, as python does (cells of one script)', async () => {
    const k = await startKernel({ script });
    await run(k, 'import warnings\n\ndef inner():\n    raise ValueError("bad value")', {
      cellNumber: 1,
      scriptLine: 3,
    });
    const { outcome } = await run(k, 'x = 1\ninner()', { cellNumber: 2, scriptLine: 9 });
    const tb = outcome.error?.traceback.join('\n') ?? '';
    expect(tb).toContain('File "/work/project/job.py", line 10, in <module>\n    inner()');
    expect(tb).toContain('File "/work/project/job.py", line 6, in inner\n    raise ValueError("bad value")');
    expect(tb).not.toContain('Cell In[');
    const syntax = await run(k, 'y = 2\nfor x in range(3) print(x)', { cellNumber: 3, scriptLine: 20 });
    expect(syntax.outcome.error?.traceback.slice(0, 2)).toEqual([
      '  File "/work/project/job.py", line 21',
      '    for x in range(3) print(x)',
    ]);
    const warned = await run(k, 'warnings.warn("careful")', { cellNumber: 4, scriptLine: 30 });
    expect(warned.stderr).toContain('/work/project/job.py:30: UserWarning: careful');
    // (a cell the notebook runs is still its own)
    expect((await run(k, '1/0', { cellNumber: 5 })).outcome.error?.traceback.join('\n')).toContain(
      'Cell In[5], line 1',
    );
  });

  it('name the script and its lines in js stacks, as node does', async () => {
    const k = await startKernel({
      language: 'js',
      script: { path: '/work/project/job.js', argv: ['job.js'] },
    });
    await run(k, 'function inner() {\n  throw new Error("bad value");\n}', { cellNumber: 1, scriptLine: 4 });
    const { outcome } = await run(k, 'let x = 1;\ninner();', { cellNumber: 2, scriptLine: 9 });
    const tb = outcome.error?.traceback.join('\n') ?? '';
    expect(tb).toContain('at inner (/work/project/job.js:5:9)');
    expect(tb).toContain('at /work/project/job.js:10:1');
    expect(tb).not.toContain('Cell In[');
    const syntax = await run(k, 'let y = 2;\nlet z = ;', { cellNumber: 3, scriptLine: 20 });
    expect(syntax.outcome.error?.traceback.slice(0, 3)).toEqual([
      '/work/project/job.js:21',
      'let z = ;',
      '        ^',
    ]);
    const awaited = await run(k, 'await 1;\nlet w = ;', { cellNumber: 4, scriptLine: 30 });
    expect(awaited.outcome.error?.traceback[0]).toBe('/work/project/job.js:31');
  });
});
