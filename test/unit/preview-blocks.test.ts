/**
 * The collapsed preview of a table wrapped into column blocks (issue 43, item 4): it never shows
 * a block's rows without their header. Real output of Debian's /usr/bin/python3 with pandas 1.5:
 * the text repr of a 1000×14 frame at 80 columns (fixtures/pandas-1000x14-*.txt), and the
 * markdown omp-eval makes of its HTML (fixtures/pandas-1000x14.md), drawn by the notebook at 80
 * columns into one box per block.
 */
import { readFileSync } from 'node:fs';
import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
import { renderMarkdown } from '../../src/tui/markdown/markdown.js';
import { columnBlocks, tailStart } from '../../src/tui/rendering/columnBlocks.js';
import { type PreviewItem, previewItems } from '../../src/tui/rendering/preview.js';
import { OutputBuffer, textOutput } from '../../src/tui/state/output.js';

const fixture = (name: string) => readFileSync(new URL(`../fixtures/${name}`, import.meta.url), 'utf8');

/** The preview as lines: the rows' text, and `…N` for the gap. */
function shown(items: PreviewItem[]): string[] {
  return items.map((i) =>
    'row' in i ? (i.row.kind === 'text' ? stripVTControlCharacters(i.row.text) : '') : `…${i.hidden}`,
  );
}

/** For each block row the preview shows after its gap, whether its block's header was shown above it. */
function rowsUnderTheirHeader(lines: string[], items: PreviewItem[]): boolean {
  const blocks = columnBlocks(lines);
  const out = shown(items);
  const gap = out.findIndex((l) => l.startsWith('…'));
  const after = out.slice(gap + 1);
  // Each line after the gap belongs to the block whose row it is; its header must come before it.
  const ofBlock = (line: string) => blocks.find((b) => lines.slice(b.headerEnd, b.end).includes(line));
  return after.every((line, i) => {
    const block = ofBlock(line);
    if (!block) return true;
    const header = lines.slice(block.start, block.headerEnd);
    return header.every((h) => after.slice(0, i).includes(h));
  });
}

describe('column blocks', () => {
  it("finds pandas' wrapped blocks, each with its header (an index name is a header line too)", () => {
    const lines = fixture('pandas-1000x14-rows20-w80.txt').split('\n');
    const blocks = columnBlocks(lines);
    expect(blocks).toHaveLength(2);
    expect(blocks.map((b) => lines.slice(b.start, b.headerEnd).map((l) => l.trim().split(/\s+/)[0]))).toEqual(
      [
        ['column_0', 'idx'],
        ['column_7', 'idx'],
      ],
    );
    expect(blocks.map((b) => b.end - b.start)).toEqual([23, 23]); // 2 header lines, 20 rows and `..`
  });

  it("finds the notebook's drawn tables, header down to the rule", () => {
    const lines = renderMarkdown(fixture('pandas-1000x14.md'), 80, { color: false }).split('\n');
    const blocks = columnBlocks(lines);
    expect(blocks.length).toBeGreaterThan(1); // 14 columns do not fit in 80
    for (const b of blocks) {
      expect(lines[b.start]).toMatch(/^┌/);
      expect(lines[b.headerEnd - 1]).toMatch(/^├/);
      expect(lines[b.end - 1]).toMatch(/^└/);
    }
  });

  it('is nothing for text that only looks alike', () => {
    expect(columnBlocks(['a \\', 'b', '', 'c', 'd', 'e'])).toEqual([]);
    expect(columnBlocks(['para one', 'more', '', 'para two', 'more'])).toEqual([]);
    expect(tailStart([], 30, 5, 15)).toEqual({ from: 15 });
  });
});

describe('the collapsed preview of a wide DataFrame', () => {
  it("pandas' text repr: the rows of the second block come under its own header", () => {
    const text = fixture('pandas-1000x14-rows20-w80.txt');
    const lines = text.replace(/\n$/, '').split('\n');
    const items = previewItems(textOutput('stdout', text), false);
    const out = shown(items);
    expect(out).toHaveLength(21); // 5 + the gap + 15: as many lines as before
    expect(out.slice(0, 5)).toEqual(lines.slice(0, 5));
    const gap = out[5] as string;
    expect(out.slice(6, 8).map((l) => l.trim().split(/\s+/)[0])).toEqual(['column_7', 'idx']);
    expect(out.at(-1)).toBe('[1000 rows x 14 columns]');
    expect(rowsUnderTheirHeader(lines, items)).toBe(true);
    // The gap counts the lines not shown: the header shown again is not among them.
    expect(Number(gap.slice(1))).toBe(lines.length - 20);
  });

  it("the notebook's tables: each box's rows under its header", () => {
    const lines = renderMarkdown(fixture('pandas-1000x14.md'), 80, { color: true }).split('\n');
    const items = previewItems(textOutput('result', lines.join('\n')), false);
    const plain = lines.map((l) => stripVTControlCharacters(l));
    expect(rowsUnderTheirHeader(plain, items)).toBe(true);
    const out = shown(items);
    expect(out.length).toBeLessThanOrEqual(21);
    const gap = out.findIndex((l) => l.startsWith('…'));
    expect(out[gap + 1]).toMatch(/^┌/); // the tail opens with its box's top, then the header
    expect(out[gap + 3]).toMatch(/^├/);
    expect(Number((out[gap] as string).slice(1))).toBe(plain.length - (out.length - 1));
  });

  it('unchanged for a frame whose blocks the cut already falls between, and for plain text', () => {
    const text = fixture('pandas-1000x14-w80.txt');
    const lines = text.replace(/\n$/, '').split('\n');
    expect(shown(previewItems(textOutput('stdout', text), false))).toEqual([
      ...lines.slice(0, 5),
      `…${lines.length - 20}`,
      ...lines.slice(-15),
    ]);
  });

  it('with lines left out (a long output), the kept tail gets its header too', () => {
    const buffer = new OutputBuffer(() => ({ push() {}, end() {}, where: {} }));
    let text = '';
    for (let i = 0; i < 3000; i++) text += `line ${i}\n`;
    buffer.appendText('stdout', text);
    buffer.appendText('stdout', fixture('pandas-1000x14-rows20-w80.txt'));
    buffer.end();
    const out = shown(previewItems(buffer.snapshot(), false));
    expect(out).toHaveLength(21);
    expect(out.slice(6, 8).map((l) => l.trim().split(/\s+/)[0])).toEqual(['column_7', 'idx']);
  });
});
