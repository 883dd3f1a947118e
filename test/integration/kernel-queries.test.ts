/**
 * What the engine asks a kernel between cells and what new kinds of output it passes on, against
 * the real runners: completeness (the kernel's answer, the local rules only while it cannot
 * answer), the user's names, the front end's cell number in tracebacks, display bundles with their
 * metadata, clear_output and set_next_input.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Language, OutputEvent, Session } from '../../src/eval/index.js';
import { localCompleteness } from '../../src/eval/index.js';
import { runEvalTool } from '../../src/eval/tool.js';
import { makeExecutor } from '../helpers/executor.js';
import { deadlineIn, startKernel, waitFor } from '../helpers/kernel.js';

/**
 * The kernel's own answer, with a deadline long enough for a loaded machine (Session.isComplete
 * gives it 1 s, then answers by the local rules).
 */
function kernelAnswer(s: Session, code: string, language: Language = 'py') {
  const kernel = s.kernelOf(language);
  if (!kernel) throw new Error(`no ${language} kernel`);
  return kernel.isComplete(code, 60_000);
}

describe('completeness: one answer, the kernel’s', () => {
  it('the Python kernel answers as IPython does, where the local rules would not', async () => {
    const s = await makeExecutor().session();
    await s.start('py');
    // IPython runs `)(` (invalid: more lines cannot fix it); the local rules see an open bracket.
    expect(localCompleteness(')(')).toMatchObject({ status: 'incomplete' });
    expect(await kernelAnswer(s, ')(')).toEqual({ status: 'invalid' });
    // A line magic's argument is not a block.
    expect(localCompleteness('%time for i in range(3):')).toMatchObject({ status: 'incomplete' });
    expect(await kernelAnswer(s, '%time for i in range(3):')).toEqual({ status: 'complete' });
    expect(await kernelAnswer(s, 'for i in range(3):')).toEqual({ status: 'incomplete', indent: '    ' });
    expect(await kernelAnswer(s, 'for i in range(3):\n    print(i)\n')).toEqual({ status: 'complete' });
    expect(await kernelAnswer(s, '%%bash\necho hi')).toMatchObject({ status: 'incomplete' });
  });

  it('the js kernel answers the same request by its parser', async () => {
    const s = await makeExecutor().session();
    await s.start('js');
    expect(await kernelAnswer(s, 'if (x) {', 'js')).toEqual({ status: 'incomplete', indent: '  ' });
    expect(await kernelAnswer(s, 'x = ;', 'js')).toEqual({ status: 'invalid' });
    expect(await kernelAnswer(s, 'const a = [1, 2]', 'js')).toEqual({ status: 'complete' });
  });

  it('while the kernel is starting or running a cell, the local rules answer at once', async () => {
    const s = await makeExecutor().session();
    expect(await s.isComplete(')(')).toMatchObject({ status: 'incomplete' }); // no kernel yet
    let printed = false;
    const running = s.run([{ code: 'import time\nprint("ready", flush=True)\ntime.sleep(30)' }], {
      onEvent: (_, e) => {
        if (e.kind === 'stdout') printed = true;
      },
    });
    await waitFor(() => printed, 60_000, 'the cell to run');
    expect(await s.isComplete(')(')).toMatchObject({ status: 'incomplete' });
    s.interrupt();
    await running;
    // Idle again, the session gives the kernel's answer (each try allows the kernel 1 s).
    const deadline = deadlineIn(60_000);
    let answer = await s.isComplete(')(');
    while (answer.status !== 'invalid' && Date.now() < deadline) answer = await s.isComplete(')(');
    expect(answer).toEqual({ status: 'invalid' });
  });
});

describe('variables: the user’s names, by request', () => {
  it('Python: names, types, summaries and shapes; nothing left behind', async () => {
    const k = await startKernel();
    await k.execute('class M:\n    shape = (2, 3)\nm = M()\nrows = [1, 2, 3]\n_private = 1');
    const listed = await k.variables(10);
    expect(listed.variables.map((v) => `${v.name}:${v.type}`)).toEqual(['M:type', 'm:M', 'rows:list']);
    expect(listed.variables.find((v) => v.name === 'm')?.shape).toEqual([2, 3]);
    expect(listed.variables.find((v) => v.name === 'rows')?.summary).toBe('n=3');
    expect((await k.variables(1)).variables).toHaveLength(1);
    expect((await k.variables(1)).total).toBe(3);
    expect(k.executionCount).toBe(1);
  });

  it('Python: a __str__ that never returns skips that name only, and the kernel serves on', async () => {
    // issue 42, item 9: one such name gave up on every name
    const k = await startKernel();
    await k.execute(
      'import time\nclass Slow:\n    def __str__(self):\n        while True: pass\nclass Sleepy:\n    def __repr__(self):\n        time.sleep(3600)\na = 1\nslow = Slow()\nsleepy = Sleepy()\nz = [1]',
    );
    const listed = await k.variables(10, 60_000, 200);
    expect(listed.error).toBeUndefined();
    expect(listed.variables.map((v) => `${v.name}:${v.type}:${v.skipped ?? false}`)).toEqual([
      'Sleepy:type:false',
      'Slow:type:false',
      'a:int:false',
      'sleepy:Sleepy:true',
      'slow:Slow:true',
      'time:module:false',
      'z:list:false',
    ]);
    expect(listed.variables.find((v) => v.name === 'slow')?.summary).toBe(
      '<skipped: its summary took longer than 0.2 s>',
    );
    expect((await k.execute('a + 1')).status).toBe('ok');
  });

  it('Python: with the whole listing out of time, the names left are listed unread', async () => {
    const k = await startKernel();
    await k.execute(
      'class Slow:\n    def __str__(self):\n        while True: pass\nfor i in range(30): globals()["s%02d" % i] = Slow()',
    );
    const listed = await k.variables(50, 1_000);
    expect(listed.error).toBeUndefined();
    expect(listed.total).toBe(32);
    expect(listed.variables.filter((v) => v.name.startsWith('s')).every((v) => v.skipped)).toBe(true);
    expect(listed.variables.some((v) => v.summary.includes('ran out of time'))).toBe(true);
    expect((await k.execute('1 + 1')).status).toBe('ok');
  });

  it('js: an inspect hook that never returns skips that name only', async () => {
    const k = await startKernel({ language: 'js' });
    await k.execute(
      "const a = 1; const stuck = { [Symbol.for('nodejs.util.inspect.custom')]() { for (;;); } }; const z = 'last'",
    );
    const listed = await k.variables(50, 60_000, 200);
    expect(listed.error).toBeUndefined();
    expect(listed.variables.map((v) => `${v.name}:${v.type}:${v.summary}`)).toEqual([
      'a:number:1',
      'stuck:object:<skipped: its summary took longer than 0.2 s>',
      "z:string:'last'",
    ]);
    expect((await k.execute('a + 1')).status).toBe('ok');
  });

  it('js: what cells defined, not the kernel’s helpers; a reassigned built-in name is the user’s', async () => {
    const k = await startKernel({ language: 'js' });
    await k.execute('const items = [1, 2, 3]; total = 6; let label = "x"; fs = 5');
    const listed = await k.variables(50);
    expect(listed.variables.map((v) => `${v.name}:${v.type}:${v.summary}`)).toEqual([
      'fs:number:5',
      'items:Array:n=3',
      "label:string:'x'",
      'total:number:6',
    ]);
  });

  it('waits for a running cell, then answers', async () => {
    const k = await startKernel();
    const running = k.execute('import time\ntime.sleep(0.5)\nlate = 1');
    const listed = await k.variables(10);
    await running;
    expect(listed.variables.map((v) => v.name)).toContain('late');
  });
});

describe('what the engine passes on', () => {
  it('the front end’s number names the cell in tracebacks, in both languages', async () => {
    const s = await makeExecutor().session();
    const [py] = await s.run([{ code: '1 / 0', cellNumber: 7 }]);
    expect(py?.error?.traceback.join('\n')).toContain('Cell In[7], line 1');
    const [js] = await s.run([{ language: 'js', code: 'null.x', cellNumber: 8 }]);
    expect(js?.error?.traceback.join('\n')).toContain('Cell In[8]:1');
    // Without a number, the kernel's count goes on from the last one it was given.
    const [own] = await s.run([{ code: '1 / 0' }]);
    expect(own?.error?.traceback.join('\n')).toContain('Cell In[8], line 1');
  });

  it('display and result events carry the bundle and its metadata', async () => {
    const s = await makeExecutor().session();
    const events: OutputEvent[] = [];
    await s.run(
      [
        {
          code: 'display({"text/html": "<b>x</b>", "text/plain": "x"}, raw=True, metadata={"text/html": {"isolated": True}})',
        },
      ],
      { onEvent: (_, e) => events.push(e) },
    );
    const shown = events.find((e) => e.kind === 'display');
    expect(shown).toMatchObject({
      bundle: { 'text/html': '<b>x</b>', 'text/plain': 'x' },
      metadata: { 'text/html': { isolated: true } },
    });
  });

  it('clear_output: the notebook hears it; the tool keeps only what follows it, as Jupyter', async () => {
    const ex = makeExecutor();
    const s = await ex.session();
    const events: OutputEvent[] = [];
    const code = 'print("before")\nclear_output()\nprint("after")';
    const [r] = await s.run([{ code }], { onEvent: (_, e) => events.push(e) });
    expect(events.map((e) => e.kind)).toEqual(['started', 'stdout', 'clear_output', 'stdout']);
    expect(r?.text).toBe('after\n');
    const tool = await runEvalTool({ cells: [{ language: 'py', code }] }, { executor: ex, id: 'agent' });
    expect(tool.text).toContain('after');
    expect(tool.text).not.toContain('before');
  });

  it('%load and set_next_input give text for the next prompt', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'omp-load-'));
    writeFileSync(join(dir, 'snippet.py'), 'x = 1\nprint(x)\n');
    const s = await makeExecutor().session({ cwd: dir });
    const events: OutputEvent[] = [];
    // (in a cell that can ask the front end, as the notebook's; elsewhere %load runs the file)
    await s.run([{ code: '%load snippet.py' }, { code: 'get_ipython().set_next_input("y = 2")' }], {
      allowStdin: true,
      onEvent: (_, e) => events.push(e),
    });
    const next = events.filter((e) => e.kind === 'set_next_input');
    expect(next).toEqual([
      { kind: 'set_next_input', text: '# %load snippet.py\nx = 1\nprint(x)\n', replace: true },
      { kind: 'set_next_input', text: 'y = 2', replace: false },
    ]);
  });
});
