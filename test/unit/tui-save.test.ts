import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CellEvents } from '../../src/tui/session/cellEvents.js';
import { toNotebook, toScript } from '../../src/tui/session/save.js';
import { type Output, OutputBuffer, type Stream, textOutput } from '../../src/tui/state/output.js';
import { type CellView, initialState, reducer } from '../../src/tui/state/reducer.js';

const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4z8DwHwAFAAH/iZk9HQAAAABJRU5ErkJggg==';

/** The output a cell's events make in the notebook. */
async function outputOf(events: Parameters<CellEvents['onEvent']>[0][]): Promise<Output> {
  const cell = new CellEvents(
    {
      imageMode: 'off',
      color: false,
      columns: () => 80,
      restarting: () => false,
      onInput: () => {},
      onCd: () => {},
      onNextInput: () => {},
    },
    () => ({ push() {}, end() {}, where: {} }),
  );
  for (const event of events) cell.onEvent(event);
  await cell.drain(true);
  return cell.buffer.snapshot();
}

async function session(): Promise<CellView[]> {
  let state = initialState({ state: 'idle', cwd: '/', mode: 'session' });
  const cells: { code: string; language?: 'py' | 'js'; status: 'ok' | 'error'; output: Output }[] = [
    {
      code: 'print("hi")\nHTML("<b>bold</b>")',
      status: 'ok',
      output: await outputOf([
        { kind: 'stdout', text: 'hi\n' },
        {
          kind: 'result',
          images: [],
          text: '**bold**',
          markdown: '**bold**',
          mimeTypes: ['text/html', 'text/plain'],
          bundle: { 'text/html': '<b>bold</b>', 'text/plain': '<IPython.core.display.HTML object>' },
        } as never,
      ]),
    },
    {
      code: 'plt.plot([1, 2])',
      status: 'ok',
      output: await outputOf([
        {
          kind: 'display',
          images: [{ mime: 'image/png', data: PNG, width: 1, height: 1 }],
          text: '<Figure size 640x480 with 1 Axes>',
          mimeTypes: ['image/png', 'text/plain'],
          bundle: { 'image/png': PNG, 'text/plain': '<Figure size 640x480 with 1 Axes>' },
        },
      ]),
    },
    {
      code: 'Markdown("# Title")',
      status: 'ok',
      output: await outputOf([
        {
          kind: 'result',
          images: [],
          text: '# Title',
          markdown: '# Title',
          mimeTypes: ['text/markdown'],
          bundle: { 'text/markdown': '# Title' },
        },
      ]),
    },
    {
      code: '%%js\n[1, 2].map((x) => x * 2)',
      language: 'js',
      status: 'ok',
      output: await outputOf([
        {
          kind: 'result',
          images: [],
          text: '[ 2, 4 ]',
          mimeTypes: ['text/plain'],
          bundle: { 'text/plain': '[ 2, 4 ]' },
        },
      ]),
    },
    {
      code: '1/0',
      status: 'error',
      output: await outputOf([
        {
          kind: 'error',
          ename: 'ZeroDivisionError',
          evalue: 'division by zero',
          traceback: ['Traceback (most recent call last):', 'ZeroDivisionError: division by zero'],
        },
      ]),
    },
  ];
  state = reducer(state, {
    type: 'submit',
    cells: cells.map((c) => ({ code: c.code, language: c.language ?? 'py' })),
  });
  cells.forEach((c, i) => {
    state = reducer(state, { type: 'start', id: i + 1, at: 0 });
    state = reducer(state, {
      type: 'finish',
      id: i + 1,
      status: c.status,
      durationMs: 1,
      output: c.output,
      counted: true,
    });
  });
  return state.done;
}

/** What threads printed between cells, text by text. */
function background(...texts: [Stream, string][]) {
  const buffer = new OutputBuffer(() => ({ push() {}, end() {}, where: {} }));
  for (const [stream, text] of texts) buffer.appendText(stream, text);
  return { type: 'background' as const, output: buffer.snapshot() };
}

/** One finished cell with `output`. */
function doneCell(output: Output, status: 'ok' | 'error' = 'error'): CellView {
  let state = reducer(initialState({ state: 'idle', cwd: '/', mode: 'session' }), {
    type: 'submit',
    cells: [{ code: 'x', language: 'py' }],
  });
  state = reducer(state, { type: 'start', id: 1, at: 0 });
  state = reducer(state, { type: 'finish', id: 1, status, durationMs: 1, output, counted: true });
  return state.done[0] as CellView;
}

describe('saving the session as a notebook', () => {
  it('keeps MIME bundles: display_data for displays, execute_result with data, text/markdown', async () => {
    const nb = JSON.parse(toNotebook(await session(), { language: 'py', pythonVersion: '3.11.7' }));
    const [html, plot, markdown, js, error] = nb.cells;
    expect(html.outputs).toEqual([
      { output_type: 'stream', name: 'stdout', text: ['hi\n'] },
      {
        output_type: 'execute_result',
        execution_count: 1,
        data: { 'text/html': ['<b>bold</b>'], 'text/plain': ['<IPython.core.display.HTML object>'] },
        metadata: {},
      },
    ]);
    expect(plot.outputs).toEqual([
      {
        output_type: 'display_data',
        data: { 'image/png': PNG, 'text/plain': ['<Figure size 640x480 with 1 Axes>'] },
        metadata: {},
      },
    ]);
    expect(markdown.outputs[0].data).toEqual({ 'text/markdown': ['# Title'] });
    expect(js.source).toEqual(['%%script node\n', '[1, 2].map((x) => x * 2)']);
    expect(js.metadata).toEqual({ omp_eval: { language: 'js' } });
    expect(error.outputs[0]).toMatchObject({ output_type: 'error', ename: 'ZeroDivisionError' });
  });

  it("saves an error's own name and value, whatever its traceback's last line says", async () => {
    const cases = [
      // a message of several lines, a note, a js stack, a thrown value that is not an Error
      [
        'ValueError',
        'first line\nsecond: part',
        ['Traceback (most recent call last):', 'ValueError: first line', 'second: part'],
      ],
      ['KeyError', "'k'", ['Traceback (most recent call last):', "KeyError: 'k'", 'hint: check it']],
      [
        'TypeError',
        "Cannot read properties of null (reading 'x')",
        ["TypeError: Cannot read properties of null (reading 'x')", '    at Cell In[2]:2:6'],
      ],
      ['Uncaught', '42', ['Uncaught 42']],
    ] as const;
    for (const [ename, evalue, traceback] of cases) {
      const output = await outputOf([{ kind: 'error', ename, evalue, traceback: [...traceback] }]);
      const nb = JSON.parse(toNotebook([doneCell(output)], { language: 'py', pythonVersion: '3.11.7' }));
      expect(nb.cells[0].outputs).toEqual([{ output_type: 'error', ename, evalue, traceback }]);
    }
  });

  it('numbers cells with one counter across languages', async () => {
    const cells = await session();
    expect(cells.map((c) => c.executionCount)).toEqual([1, 2, 3, 4, 5]);
    const nb = JSON.parse(toNotebook(cells, { language: 'py' }));
    expect(nb.cells.map((c: { execution_count: number }) => c.execution_count)).toEqual([1, 2, 3, 4, 5]);
    expect(toScript(cells)).toContain('# %%\n%%js\n[1, 2].map');
  });

  it('keeps the cells a failure left unrun, as typed, with no count and no outputs', () => {
    let state = reducer(initialState({ state: 'idle', cwd: '/', mode: 'session' }), {
      type: 'submit',
      cells: [
        { code: '1/0', language: 'py' },
        { code: 'never = 1', language: 'py' },
      ],
    });
    state = reducer(state, { type: 'start', id: 1, at: 0 });
    state = reducer(state, {
      type: 'finish',
      id: 1,
      status: 'error',
      durationMs: 1,
      output: textOutput('stderr', 'ZeroDivisionError\n'),
      counted: true,
    });
    state = reducer(state, { type: 'skipRest', afterId: 1 });
    // What a thread prints after that belongs to the cell that ran.
    state = reducer(state, background(['stdout', 'late\n']));
    expect(state.done.map((c) => c.status)).toEqual(['error', 'skipped', 'ok']);
    expect(toScript(state.done)).toBe('# %%\n1/0\n\n# %%\nnever = 1\n');
    const nb = JSON.parse(toNotebook(state.done, { language: 'py' }));
    expect(nb.cells[1]).toMatchObject({ source: ['never = 1'], execution_count: null, outputs: [] });
    expect(nb.cells[0].outputs).toEqual([
      { output_type: 'stream', name: 'stderr', text: ['ZeroDivisionError\n'] },
      { output_type: 'stream', name: 'stdout', text: ['late\n'] },
    ]);
  });

  it('saves what threads printed between cells with the cell before, as the screen shows it', async () => {
    let state = reducer(initialState({ state: 'idle', cwd: '/', mode: 'session' }), {
      type: 'submit',
      cells: [
        { code: 'start_thread()', language: 'py' },
        { code: '2 + 2', language: 'py' },
      ],
    });
    const finish = async (id: number, events: Parameters<CellEvents['onEvent']>[0][]) => {
      state = reducer(state, { type: 'start', id, at: 0 });
      const output = await outputOf(events);
      state = reducer(state, { type: 'finish', id, status: 'ok', durationMs: 1, output, counted: true });
    };
    await finish(1, [{ kind: 'stdout', text: 'bg 0\npartial' }]);
    state = reducer(state, background(['stdout', 'bg 1\nbg 2']));
    state = reducer(state, { type: 'info', text: 'a message of the notebook' });
    await finish(2, [{ kind: 'stdout', text: 'four\n' }]);
    state = reducer(state, background(['stdout', 'LATE\n'], ['stderr', 'Exception in thread\n']));
    const nb = JSON.parse(toNotebook(state.done, { language: 'py' }));
    expect(nb.cells.map((c: { outputs: unknown }) => c.outputs)).toEqual([
      [{ output_type: 'stream', name: 'stdout', text: ['bg 0\n', 'partial\n', 'bg 1\n', 'bg 2\n'] }],
      [
        { output_type: 'stream', name: 'stdout', text: ['four\n', 'LATE\n'] },
        // (A thread's stderr stays stderr.)
        { output_type: 'stream', name: 'stderr', text: ['Exception in thread\n'] },
      ],
    ]);
    expect(nb.cells.map((c: { id: string }) => c.id)).toEqual(['cell-1', 'cell-2']);
  });

  it("names a remote kernel's own kernelspec and kernel_info language, whatever its language", async () => {
    const languageInfo = { name: 'R', version: '4.3.1', file_extension: '.r', mimetype: 'text/x-r-source' };
    const kernelspec = { name: 'ir', display_name: 'R', language: 'R' };
    const remote = {
      server: 'hub.example.org/user/ann',
      kernelName: 'ir',
      kernelId: 'k1',
      languageInfo,
      kernelspec,
    };
    const nb = JSON.parse(toNotebook(await session(), { language: 'py', pythonVersion: '3.11.7', remote }));
    expect(nb.metadata).toEqual({ kernelspec, language_info: languageInfo });
    // Without kernel_info's answer (yet): the kernel's name, and no language_info to get wrong.
    const bare = JSON.parse(
      toNotebook([], {
        language: 'py',
        remote: { ...remote, kernelspec: undefined, languageInfo: undefined },
      }),
    );
    expect(bare.metadata).toEqual({ kernelspec: { name: 'ir', display_name: 'ir', language: '' } });
  });

  it("is valid nbformat, and nbconvert's script export has In[n] markers and a .py name", async () => {
    const python = '/usr/bin/python3';
    if (!existsSync(python)) return expect.fail('/usr/bin/python3 with nbformat is needed');
    const dir = mkdtempSync(join(tmpdir(), 'omp-nb-'));
    const file = join(dir, 'session.ipynb');
    writeFileSync(file, toNotebook(await session(), { language: 'py', pythonVersion: '3.11.7' }));
    execFileSync(python, [
      '-c',
      'import nbformat, sys; nbformat.validate(nbformat.read(sys.argv[1], 4))',
      file,
    ]);
    execFileSync(python, ['-m', 'nbconvert', '--to', 'script', file], { stdio: 'pipe' });
    const script = readFileSync(join(dir, 'session.py'), 'utf8');
    expect(script).toContain('# In[1]:');
    expect(script).toContain('# In[5]:');
    expect(script).toContain("get_ipython().run_cell_magic('script', 'node'");
  });
});
