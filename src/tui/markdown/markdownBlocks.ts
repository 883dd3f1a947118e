/**
 * Markdown's block tokens (marked's lexer) as lines of terminal text `width` columns wide: headings
 * with their `#`s, wrapped paragraphs, lists indented two columns (bullets `*`, numbers from the
 * list's start, task boxes, no blank lines inside), code indented two columns and highlighted as
 * cells are, quotes indented and grey, boxed tables, rules. Blocks are separated by an empty line.
 */
import type { Token, Tokens } from 'marked';
import { highlightCode } from '../rendering/highlight.js';
import { clean, renderInline, type Styles } from './markdownInline.js';
import { renderTable } from './markdownTable.js';
import { reflow } from './reflow.js';

/** The indent of lists, quotes and code. */
const INDENT = '  ';
/** Text is never wrapped narrower than this, however deep it is nested. */
const MIN_WIDTH = 10;

/** The blocks as lines, an empty line between two blocks. */
export function renderBlocks(tokens: Token[], width: number, s: Styles): string[] {
  const out: string[] = [];
  for (const token of tokens) {
    const lines = renderBlock(token, width, s);
    if (lines.length === 0) continue;
    if (out.length > 0) out.push('');
    out.push(...lines);
  }
  return out;
}

function renderBlock(token: Token, width: number, s: Styles): string[] {
  switch (token.type) {
    case 'space':
    case 'def':
      return [];
    case 'heading': {
      const style = token.depth === 1 ? s.firstHeading : s.heading;
      const text = `${'#'.repeat(token.depth)} ${renderInline(token.tokens ?? [], s)}`;
      return reflow(text, width).map((line) => style(line));
    }
    case 'paragraph':
    case 'text':
      return reflow(textOf(token, s), width);
    case 'code': {
      const text = clean(token.text);
      const lang = (token as Tokens.Code).lang?.split(/\s/)[0] ?? '';
      const shown = s.color ? highlightCode(text, true, lang) : text;
      return shown.split('\n').map((line) => INDENT + line);
    }
    case 'blockquote':
      return renderBlocks(token.tokens ?? [], inner(width), s).map((line) =>
        line ? s.blockquote(INDENT + line) : line,
      );
    case 'list':
      return renderList(token as Tokens.List, width, s);
    case 'table':
      return renderTable(token as Tokens.Table, width, s);
    case 'hr':
      return ['-'.repeat(Math.max(1, width - 1))];
    case 'html': {
      const text = clean(token.text).replace(/\n+$/, '');
      return text ? text.split('\n').map((line) => s.html(line)) : [];
    }
    default:
      if ('tokens' in token && Array.isArray(token.tokens))
        return reflow(renderInline(token.tokens, s), width);
      return clean(token.raw).replace(/\n+$/, '').split('\n');
  }
}

const inner = (width: number, by = INDENT.length) => Math.max(MIN_WIDTH, width - by);

/** A paragraph's or a list item's text token as styled text. */
function textOf(token: Token, s: Styles): string {
  if ('tokens' in token && Array.isArray(token.tokens)) return renderInline(token.tokens, s);
  return 'text' in token && typeof token.text === 'string' ? clean(token.text).replace(/\n/g, ' ') : '';
}

/**
 * A list, indented two columns. An item's text is wrapped under its own first line (after the
 * bullet or number); a list inside an item is indented two columns from the item's, as are the
 * item's other blocks after its marker. Blank lines are left out: a loose list is shown as compact.
 */
function renderList(list: Tokens.List, width: number, s: Styles): string[] {
  const out: string[] = [];
  const start = typeof list.start === 'number' ? list.start : 1;
  list.items.forEach((item, n) => {
    const marker = list.ordered ? `${start + n}. ` : '* ';
    const room = inner(width, INDENT.length + marker.length);
    let box = item.task ? `[${item.checked ? 'X' : ' '}] ` : '';
    const lines: { text: string; nested: boolean }[] = [];
    for (const block of item.tokens) {
      if (block.type === 'checkbox') continue;
      if (block.type === 'list') {
        for (const text of renderList(block as Tokens.List, inner(width), s))
          lines.push({ text, nested: true });
        continue;
      }
      const text =
        block.type === 'paragraph' || block.type === 'text'
          ? reflow(box + textOf(block, s), room)
          : [...(box ? [box.trimEnd()] : []), ...renderBlock(block, room, s)];
      if (text.length > 0) box = '';
      for (const line of text) lines.push({ text: line, nested: false });
    }
    if (box) lines.unshift({ text: box.trimEnd(), nested: false });
    const shown = lines.filter((line) => line.text !== '');
    const [first, ...rest] = shown;
    out.push(first ? marker + (first.nested ? first.text.trimStart() : first.text) : marker.trimEnd());
    for (const line of rest) out.push(line.nested ? line.text : ' '.repeat(marker.length) + line.text);
  });
  return out.map((line) => INDENT + line);
}
