import { describe, expect, it } from 'vitest';
import { MARKDOWN_LIMIT, planColumns, renderMarkdown } from '../../src/tui/markdown/markdown.js';

const ESC = String.fromCharCode(27);
const visible = (s: string) => [...s.replace(new RegExp(`${ESC}\\[[0-9;]*m`, 'g'), '')].length;

const DOC = `# Report

Some **bold** and *italic* text with \`inline: code\` and a [link](https://example.com) that goes on for a while so that the paragraph has to wrap at the width we give it.

## Steps

- first item
- second item
  - nested item

1. one
2. two

\`\`\`python
def f(x):
    return x + 1
\`\`\`

> a quote

| name | value |
| --- | ---: |
| alpha | 1 |
| beta | 22 |
`;

describe('renderMarkdown', () => {
  it('renders headings, wrapped paragraphs, lists, code, quotes and tables at the width', () => {
    expect(renderMarkdown(DOC, 40, { color: false })).toBe(
      [
        '# Report',
        '',
        'Some bold and italic text with inline:',
        'code and a link (https://example.com)',
        'that goes on for a while so that the',
        'paragraph has to wrap at the width we',
        'give it.',
        '',
        '## Steps',
        '',
        '  * first item',
        '  * second item',
        '    * nested item',
        '',
        '  1. one',
        '  2. two',
        '',
        '  def f(x):',
        '      return x + 1',
        '',
        '  a quote',
        '',
        '┌───────┬───────┐',
        '│ name  │ value │',
        '├───────┼───────┤',
        '│ alpha │     1 │',
        '│ beta  │    22 │',
        '└───────┴───────┘',
      ].join('\n'),
    );
  });

  it('renders inline markup inside list items as in paragraphs', () => {
    const md = '- list **bold** and `code` and [link](http://x.y)\n1. num *em*\n- [ ] task **done**';
    expect(renderMarkdown(md, 80, { color: false })).toBe(
      ['  * list bold and code and link (http://x.y)', '', '  1. num em', '', '  * [ ] task done'].join('\n'),
    );
    // A hard break in an item is a new line of the item (no carriage return).
    expect(renderMarkdown('- line one  \n  line two', 60, { color: false })).toBe(
      '  * line one\n    line two',
    );
    const coloured = renderMarkdown('- a **bold** item', 80, { color: true });
    expect(coloured).toContain(`${ESC}[1mbold${ESC}[22m`);
    expect(coloured).not.toContain('**');
  });

  it('styles with ANSI when colour is on, and writes no escape at all when it is off', () => {
    const coloured = renderMarkdown('## Head\n\n**bold** `code`\n\n```python\nx = 1\n```', 40, {
      color: true,
    });
    expect(coloured).toContain(`${ESC}[1m## Head`);
    expect(coloured).toContain(`${ESC}[1mbold${ESC}[22m`);
    const plain = renderMarkdown(
      `## Head\n\n**bold** text ${ESC}]0;title\u0007 \n\n\`\`\`python\nx = 1${ESC}[31m\n\`\`\``,
      40,
      {
        color: false,
      },
    );
    expect(plain).not.toContain(ESC);
    expect(plain).toContain('bold text ]0;title');
    expect(plain).toContain('  x = 1[31m');
  });

  it("highlights code blocks with highlight.js 11 in the fence's language, as cells are", async () => {
    const { default: chalk } = await import('chalk');
    const level = chalk.level;
    chalk.level = 1;
    try {
      const out = renderMarkdown('```bash\nfor f in *.txt; do echo "$f"; done\n```', 60, { color: true });
      const { highlightCode } = await import('../../src/tui/rendering/highlight.js');
      expect(out).toContain(highlightCode('for f in *.txt; do echo "$f"; done', true, 'bash'));
      expect(out).toContain(ESC);
      // A fence without a known language stays as written, indented.
      const plain = renderMarkdown('```nosuch\nx = 1\n```', 60, { color: true });
      expect(plain).toContain('  x = 1');
    } finally {
      chalk.level = level;
    }
  });

  it('measures wide characters in tables by their terminal width', () => {
    const out = renderMarkdown('| name | v |\n| --- | --- |\n| 漢字漢字 | 1 |\n| ab | 2 |', 40, {
      color: false,
    });
    const rows = out.split('\n').filter((l) => l.startsWith('│'));
    const widths = rows.map((l) => [...l].reduce((w, ch) => w + (/[\u4e00-\u9fff]/.test(ch) ? 2 : 1), 0));
    expect(new Set(widths).size).toBe(1);
  });

  it('fits a wide table into the width: column blocks that repeat the index column', () => {
    const header = `|  | ${Array.from({ length: 12 }, (_, i) => `column_${i}`).join(' | ')} |`;
    const rule = `| ---: | ${Array.from({ length: 12 }, () => '---:').join(' | ')} |`;
    const rows = [0, 1].map(
      (r) => `| ${r} | ${Array.from({ length: 12 }, (_, i) => `${r}.${i}0000`).join(' | ')} |`,
    );
    const out = renderMarkdown([header, rule, ...rows].join('\n'), 60, { color: false });
    const lines = out.split('\n');
    expect(Math.max(...lines.map(visible))).toBeLessThanOrEqual(60);
    for (let i = 0; i < 12; i++) expect(out).toContain(`column_${i}`);
    const tables = out.split('\n\n');
    expect(tables.length).toBeGreaterThan(2);
    for (const table of tables) expect(table).toMatch(/│ 1 │ +1\.\d+0000 │/);
  });

  it('wraps a long cell instead of overflowing', () => {
    const long = 'word '.repeat(40).trim();
    const out = renderMarkdown(`| key | text |\n| --- | --- |\n| a | ${long} |`, 50, { color: false });
    const lines = out.split('\n');
    expect(Math.max(...lines.map(visible))).toBeLessThanOrEqual(50);
    expect(lines.length).toBeGreaterThan(6);
    expect(out.replace(/[│\s]+/g, ' ')).toContain('word word word');
  });

  it('numbers lists from their start, nested lists apart, and wraps items under their text', () => {
    const md =
      '3. three\n   - sub a\n   - sub b\n4. four\n   1. n1\n\n- [x] a task that is long enough to wrap';
    expect(renderMarkdown(md, 30, { color: false })).toBe(
      [
        '  3. three',
        '    * sub a',
        '    * sub b',
        '  4. four',
        '    1. n1',
        '',
        '  * [X] a task that is long',
        '    enough to wrap',
      ].join('\n'),
    );
  });

  it('keeps quotes, paragraphs and HTML blocks inside the width and apart', () => {
    const quote = renderMarkdown(`> ${'word '.repeat(12)}\n> - item one\n> - item two`, 30, { color: false });
    expect(quote.split('\n')).toEqual([
      '  word word word word word',
      '  word word word word word',
      '  word word',
      '',
      '    * item one',
      '    * item two',
    ]);
    expect(renderMarkdown('*em with  \nbreak* after', 40, { color: false })).toBe('em with\nbreak after');
    expect(renderMarkdown('<div>\nblock\n</div>\n\nafter', 40, { color: false })).toBe(
      '<div>\nblock\n</div>\n\nafter',
    );
    expect(renderMarkdown('漢字'.repeat(15), 20, { color: false }).split('\n')).toEqual([
      '漢字'.repeat(5),
      '漢字'.repeat(5),
      '漢字'.repeat(5),
    ]);
  });

  it('wraps a word too long for a narrowed column over lines instead of cutting it off', () => {
    const out = renderMarkdown(`| k | v |\n| --- | --- |\n| a | ${'x'.repeat(70)} |`, 40, { color: false });
    expect(out.replace(/[^x]/g, '')).toHaveLength(70);
    expect(Math.max(...out.split('\n').map(visible))).toBeLessThanOrEqual(40);
  });

  it("colours a table's header and borders with colour on, whatever the output stream is", () => {
    const out = renderMarkdown('| a |\n| - |\n| 1 |', 40, { color: true });
    expect(out.split('\n')[1]).toBe(`${ESC}[90m│${ESC}[39m${ESC}[1m a ${ESC}[22m${ESC}[90m│${ESC}[39m`);
  });

  it('renders at most MARKDOWN_LIMIT characters, with a notice', () => {
    const line = '- an item of a very long list\n';
    const md = line.repeat(Math.ceil((MARKDOWN_LIMIT * 3) / line.length));
    const out = renderMarkdown(md, 80, { color: false });
    const notice = out.split('\n').at(-1) as string;
    expect(notice).toMatch(/^\[[\d,]+ more characters of markdown not rendered\]$/);
    const omitted = Number(notice.replace(/\D/g, ''));
    expect(omitted).toBeGreaterThan(md.length - MARKDOWN_LIMIT - 1);
    expect(omitted).toBeLessThan(md.length - MARKDOWN_LIMIT + line.length);
  });
});

describe('planColumns', () => {
  it('keeps a table that fits whole, with its natural widths', () => {
    expect(planColumns([5, 7, 9], 40)).toEqual([{ columns: [0, 1, 2] }]);
  });

  it('splits a wide table into blocks no wider than the width, each with the first column', () => {
    const blocks = planColumns([4, 12, 12, 12, 12, 12], 40);
    expect(blocks.map((b) => b.columns)).toEqual([
      [0, 1, 2],
      [0, 3, 4],
      [0, 5],
    ]);
    for (const b of blocks) {
      const widths = b.widths ?? [];
      expect(widths.reduce((a, c) => a + c, 0) + widths.length + 1).toBeLessThanOrEqual(40);
    }
  });

  it('narrows a column too wide for the terminal', () => {
    const [block] = planColumns([6, 200], 50);
    expect(block?.columns).toEqual([0, 1]);
    const widths = block?.widths ?? [];
    expect(widths.reduce((a, c) => a + c, 0) + widths.length + 1).toBeLessThanOrEqual(50);
  });
});
