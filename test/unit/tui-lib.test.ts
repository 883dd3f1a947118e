import stripAnsi from 'strip-ansi';
import { describe, expect, it } from 'vitest';
import { autoIndent, localCompleteness } from '../../src/eval/completeness.js';

const needsMoreInput = (code: string) => localCompleteness(code).status === 'incomplete';

import { clampLine, hiddenLabel, previewItems } from '../../src/tui/rendering/preview.js';
import { OutputBuffer, textOutput } from '../../src/tui/state/output.js';

describe('preview and clamp', () => {
  it('clamps lines longer than 4000 characters and says how much is left out', () => {
    expect(clampLine('x'.repeat(4000))).toEqual({ kept: 'x'.repeat(4000), omitted: 0 });
    expect(clampLine('x'.repeat(4500))).toEqual({ kept: 'x'.repeat(4000), omitted: 500 });
    expect(clampLine('x'.repeat(4000), 20)).toEqual({ kept: 'x'.repeat(4000), omitted: 20 });
  });

  it('collapses to the first 5 and the last 15 lines, so a header and a signature stay', () => {
    const output = textOutput('stdout', Array.from({ length: 30 }, (_, i) => `l${i}`).join('\n'));
    const items = previewItems(output, false);
    const text = items.map((i) =>
      'row' in i && i.row.kind === 'text' ? i.row.text : `gap ${'hidden' in i ? i.hidden : ''}`,
    );
    expect(text).toEqual([
      'l0',
      'l1',
      'l2',
      'l3',
      'l4',
      'gap 10',
      ...Array.from({ length: 15 }, (_, i) => `l${i + 15}`),
    ]);
    expect(previewItems(output, true)).toHaveLength(30);
    expect(previewItems(textOutput('stdout', 'a\nb'), false)).toHaveLength(2);
    expect(hiddenLabel(5, true)).toBe('… 5 more lines (ctrl+o shows them)');
    expect(hiddenLabel(1, true)).toBe('… 1 more line (ctrl+o shows them)');
  });

  it('says how many of the hidden lines Ctrl-O can show when not all were kept', () => {
    const buffer = new OutputBuffer(() => ({ push() {}, end() {}, where: {} }));
    let text = '';
    for (let i = 0; i < 5_000; i++) text += `line ${i}\n`;
    buffer.appendText('stdout', text);
    buffer.end();
    const output = buffer.snapshot();
    const gap = previewItems(output, false).find((i) => 'hidden' in i);
    const kept = output.head.length + output.tail.length;
    expect(gap).toEqual({ hidden: 5_000 - 20, kept: true, showable: kept - 20 });
    expect(hiddenLabel(4_980, true, kept - 20)).toBe(`… 4980 more lines (ctrl+o shows ${kept - 20} of them)`);
  });
});

describe('the local completeness rules (while the kernel cannot answer)', () => {
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

  it('says how to indent the next line', () => {
    expect(localCompleteness('for i in x:')).toEqual({ status: 'incomplete', indent: '    ' });
    expect(localCompleteness('f(a,')).toEqual({ status: 'incomplete', indent: '' });
    expect(localCompleteness('if x:\n    y = 1')).toEqual({ status: 'incomplete', indent: '    ' });
    expect(localCompleteness('1 + 1')).toEqual({ status: 'complete' });
  });

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
    const { addToHistory, loadHistory, searchHistory } = await import('../../src/tui/session/history.js');
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

describe('asking the terminal for its image protocol', () => {
  it('reads kitty from its graphics reply and iTerm2 from XTVERSION', async () => {
    const { protocolFromReply } = await import('../../src/tui/terminal/terminalQuery.js');
    expect(protocolFromReply('\x1b_Gi=31;OK\x1b\\\x1b[?62;c')).toBe('kitty');
    expect(protocolFromReply('\x1bP>|iTerm2 3.5.0\x1b\\\x1b[?62;c')).toBe('iterm');
    expect(protocolFromReply('\x1bP>|xterm(390)\x1b\\\x1b[?64;1;2c')).toBeUndefined();
    expect(protocolFromReply('')).toBeUndefined();
  });

  it('sends the query, stops reading at the DA1 reply, and keeps the keys typed meanwhile', async () => {
    const { EventEmitter } = await import('node:events');
    const { IMAGE_QUERY, queryImageProtocol } = await import('../../src/tui/terminal/terminalQuery.js');
    const { EarlyInput } = await import('../../src/tui/terminal/earlyInput.js');
    const queue: Buffer[] = [];
    const unshifted: Buffer[] = [];
    const stdin = Object.assign(new EventEmitter(), {
      read: () => queue.shift() ?? null,
      unshift: (chunk: Buffer) => unshifted.push(chunk),
    });
    const early = new EarlyInput(stdin);
    const written: string[] = [];
    const stdout = {
      isTTY: true,
      write: (data: string) => {
        written.push(data);
        setTimeout(() => {
          // A key typed before the replies and one between them.
          queue.push(Buffer.from('1+\x1b_Gi=31;OK\x1b\\'), Buffer.from('1\r\x1b[?62;c'));
          stdin.emit('readable');
        }, 5);
        return true;
      },
    };
    // A deadline far beyond the test's own: the answer, not the deadline, ends the query.
    const found = await queryImageProtocol(early, stdout, 3_600_000);
    expect(found).toBe('kitty');
    expect(written).toEqual([IMAGE_QUERY]);
    early.release();
    expect(stdin.listenerCount('readable')).toBe(0);
    expect(Buffer.concat(unshifted).toString()).toBe('1+1\r');
  });
});

describe('highlighting', () => {
  it('turns highlight.js HTML into ANSI: nested spans, escaped text, one colour run per line', async () => {
    const { default: chalk } = await import('chalk');
    const { htmlToAnsi, highlightCode } = await import('../../src/tui/rendering/highlight.js');
    const level = chalk.level;
    chalk.level = 1;
    try {
      const html =
        '<span class="hljs-string">f&quot;a<span class="hljs-subst">{x}</span>\nb&quot;</span> &lt; 1';
      const ansi = htmlToAnsi(html);
      expect(stripAnsi(ansi)).toBe('f"a{x}\nb" < 1');
      expect(ansi.split('\n')[1]?.startsWith('\x1b[')).toBe(true);
      const code = 'def f(x):\n    return "<b>" if x else None  # note';
      expect(stripAnsi(highlightCode(code, true, 'py'))).toBe(code);
      expect(highlightCode(code, true, 'py')).not.toBe(code);
      const js = 'const s = `a $' + '{b}` < 2';
      expect(stripAnsi(highlightCode(js, true, 'js'))).toBe(js);
      // A remote kernel's language or a markdown fence's: its name picks the grammar, loaded when
      // first shown; a language without one is plain.
      expect(highlightCode(code, true, 'python')).toBe(highlightCode(code, true, 'py'));
      const r = 'if (x) { y <- c(1, 2) }  # R';
      expect(highlightCode(r, true, 'R')).not.toBe(r);
      expect(stripAnsi(highlightCode(r, true, 'R'))).toBe(r);
      expect(highlightCode(r, true, 'no-such-language')).toBe(r);
      expect(highlightCode(r, true, '../../../etc')).toBe(r);
      expect(highlightCode(r, true, 'constructor')).toBe(r);
      expect(highlightCode(r, true, '__proto__')).toBe(r);
      const ts = 'const n: number = 1;';
      expect(stripAnsi(highlightCode(ts, true, 'ts'))).toBe(ts);
      expect(highlightCode(ts, true, 'ts')).not.toBe(ts);
      // A pasted cell of megabytes: its first HIGHLIGHT_LIMIT characters in colour, from a line's
      // start on as it is (highlight.js would take seconds a megabyte).
      const { HIGHLIGHT_LIMIT } = await import('../../src/tui/rendering/highlight.js');
      const line = 'x = [1, "two"]  # three\n';
      const big = line.repeat(Math.ceil((HIGHLIGHT_LIMIT * 3) / line.length));
      const shown = highlightCode(big, true, 'py');
      expect(stripAnsi(shown)).toBe(big);
      const plainFrom = shown.lastIndexOf('\x1b[') + shown.slice(shown.lastIndexOf('\x1b[')).indexOf('\n');
      expect(shown.slice(plainFrom)).toBe(big.slice(big.lastIndexOf('\n', HIGHLIGHT_LIMIT)));
      expect(shown.slice(0, 200)).toContain('\x1b[');
    } finally {
      chalk.level = level;
    }
  });
});

describe('Tab inside a string completes paths', () => {
  it('tells paths, dictionary keys, names and indentation apart', async () => {
    const { completionContext } = await import('../../src/tui/session/completion.js');
    expect(completionContext('open("da', 8)).toEqual({ kind: 'path', text: 'da', from: 6 });
    expect(completionContext("df = pd.read_csv('data/ra", 25)).toEqual({
      kind: 'path',
      text: 'data/ra',
      from: 18,
    });
    expect(completionContext('d["al', 5)).toEqual({ kind: 'kernel' });
    expect(completionContext('x = "done"; pri', 15)).toEqual({ kind: 'kernel' });
    expect(completionContext('# a "quote in a comment', 22)).toEqual({ kind: 'kernel' });
    expect(completionContext('    ', 4)).toEqual({ kind: 'indent' });
  });

  it('lists the entries that start with the last part, directories with a slash, hidden ones on request', async () => {
    const { mkdtempSync, mkdirSync, writeFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { pathCompletions } = await import('../../src/tui/session/completion.js');
    const cwd = mkdtempSync(join(tmpdir(), 'omp-paths-'));
    mkdirSync(join(cwd, 'data'));
    writeFileSync(join(cwd, 'data', 'raw.csv'), '');
    writeFileSync(join(cwd, 'data', 'ready.txt'), '');
    writeFileSync(join(cwd, 'data', '.hidden'), '');
    writeFileSync(join(cwd, 'dates.py'), '');
    expect(pathCompletions('da', cwd)).toEqual({ items: ['data/', 'dates.py'], from: 0, to: 2 });
    expect(pathCompletions('data/r', cwd)).toEqual({ items: ['raw.csv', 'ready.txt'], from: 5, to: 6 });
    expect(pathCompletions('data/', cwd).items).toEqual(['raw.csv', 'ready.txt']);
    expect(pathCompletions('data/.h', cwd).items).toEqual(['.hidden']);
    expect(pathCompletions('nowhere/x', cwd)).toEqual({ items: [], from: 9, to: 9 });
  });
});
