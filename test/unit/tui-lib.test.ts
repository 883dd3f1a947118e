import { describe, expect, it } from 'vitest';
import { autoIndent, needsMoreInput } from '../../src/eval/completeness.js';
import { clampLine, hiddenLabel } from '../../src/tui/lib/preview.js';

describe('preview and clamp', () => {
  it('clamps lines longer than 4000 characters and says how much is left out', () => {
    expect(clampLine('x'.repeat(4000))).toBe('x'.repeat(4000));
    expect(clampLine('x'.repeat(4500))).toBe(`${'x'.repeat(4000)}… [500 chars omitted]`);
  });

  it('labels the lines a collapsed cell hides', () => {
    expect(hiddenLabel(5)).toBe('… 5 more lines (ctrl+o to expand)');
    expect(hiddenLabel(1)).toBe('… 1 more line (ctrl+o to expand)');
  });
});

describe('needsMoreInput', () => {
  const more = [
    'for i in range(3):',
    'x = (1,',
    'f(a,\n  b',
    's = """abc',
    'x = 1 + \\',
    'if x:\n    y = 1',
    '%%bash\necho hi',
    'def f():  # c',
  ];
  const done = [
    '1 + 1',
    'x = (1,\n 2)',
    'if x:\n    y = 1\n',
    'def f():\n    return 1\nf()',
    's = "a:"',
    'x = 1  # ends with:',
    '',
  ];
  for (const code of more)
    it(`waits for more after ${JSON.stringify(code)}`, () => expect(needsMoreInput(code)).toBe(true));
  for (const code of done) it(`runs ${JSON.stringify(code)}`, () => expect(needsMoreInput(code)).toBe(false));

  it('indents after a colon and keeps the indentation otherwise', () => {
    expect(autoIndent('for i in x:')).toBe('    ');
    expect(autoIndent('    if y:  # note')).toBe('        ');
    expect(autoIndent('    z = 1')).toBe('    ');
  });
});

describe('history file', () => {
  it('keeps entries across runs, newest last, and never replaces a device file', async () => {
    const { mkdtempSync, statSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { addToHistory, loadHistory, searchHistory } = await import('../../src/tui/lib/history.js');
    const file = join(mkdtempSync(join(tmpdir(), 'omp-hist-')), 'h.json');
    let h = addToHistory([], 'a = 1', file);
    h = addToHistory(h, 'b = 2', file);
    h = addToHistory(h, 'a = 1', file);
    expect(loadHistory(file)).toEqual(['b = 2', 'a = 1']);
    expect(searchHistory(h, 'b')).toBe(0);
    addToHistory([], 'x', '/dev/null');
    expect(statSync('/dev/null').isCharacterDevice()).toBe(true);
  });
});

describe('saving the session', () => {
  it('writes a # %% script and an nbformat 4 notebook with clean outputs', async () => {
    const { toNotebook, toScript } = await import('../../src/tui/lib/save.js');
    const { appendText, emptyOutput } = await import('../../src/tui/state/output.js');
    let output = appendText(emptyOutput(), 'stdout', 'hello\n');
    output = appendText(output, 'status', 'cd path=/tmp\n');
    output = appendText(output, 'result', '\x1b[31mrow 1\x1b[0m\nrow 2\n');
    const ok = {
      id: 1,
      code: 'print("hello")\ndf',
      status: 'ok' as const,
      executionCount: 3,
      output,
      expanded: false,
    };
    const failed = {
      id: 2,
      code: '1/0',
      status: 'error' as const,
      executionCount: 4,
      output: appendText(
        emptyOutput(),
        'error',
        'Traceback (most recent call last):\nZeroDivisionError: division by zero\n',
      ),
      expanded: false,
    };
    expect(toScript([ok, failed])).toBe('# %%\nprint("hello")\ndf\n\n# %%\n1/0\n');
    const nb = JSON.parse(toNotebook([ok, failed]));
    expect(nb.nbformat).toBe(4);
    expect(nb.cells[0].outputs).toEqual([
      { output_type: 'stream', name: 'stdout', text: ['hello\n'] },
      {
        output_type: 'execute_result',
        execution_count: 3,
        data: { 'text/plain': ['row 1\n', 'row 2'] },
        metadata: {},
      },
    ]);
    expect(nb.cells[1].outputs).toEqual([
      {
        output_type: 'error',
        ename: 'ZeroDivisionError',
        evalue: 'division by zero',
        traceback: ['Traceback (most recent call last):', 'ZeroDivisionError: division by zero'],
      },
    ]);
  });
});

describe('asking the terminal for its image protocol', () => {
  it('reads kitty from its graphics reply and iTerm2 from XTVERSION', async () => {
    const { protocolFromReply } = await import('../../src/tui/lib/terminalQuery.js');
    expect(protocolFromReply('\x1b_Gi=31;OK\x1b\\\x1b[?62;c')).toBe('kitty');
    expect(protocolFromReply('\x1bP>|iTerm2 3.5.0\x1b\\\x1b[?62;c')).toBe('iterm');
    expect(protocolFromReply('\x1bP>|xterm(390)\x1b\\\x1b[?64;1;2c')).toBeUndefined();
    expect(protocolFromReply('')).toBeUndefined();
  });

  it('sends the query and stops reading at the DA1 reply', async () => {
    const { EventEmitter } = await import('node:events');
    const { IMAGE_QUERY, queryImageProtocol } = await import('../../src/tui/lib/terminalQuery.js');
    const queue: string[] = [];
    const stdin = Object.assign(new EventEmitter(), {
      isTTY: true,
      isRaw: false,
      setRawMode(raw: boolean) {
        this.isRaw = raw;
      },
      read: () => queue.shift() ?? null,
    });
    const written: string[] = [];
    const stdout = {
      isTTY: true,
      write: (data: string) => {
        written.push(data);
        setTimeout(() => {
          queue.push('\x1b_Gi=31;OK\x1b\\', '\x1b[?62;c');
          stdin.emit('readable');
        }, 5);
        return true;
      },
    };
    // A deadline far beyond the test's own: the answer, not the deadline, ends the query.
    const found = await queryImageProtocol(stdin as never, stdout as never, 3_600_000);
    expect(found).toBe('kitty');
    expect(written).toEqual([IMAGE_QUERY]);
    expect(stdin.isRaw).toBe(false);
    expect(stdin.listenerCount('readable')).toBe(0);
  });
});
