/**
 * Markdown → text for the terminal: marked's lexer parses, our renderer lays the tokens out
 * (markdownBlocks.ts, markdownInline.ts, markdownTable.ts): styled headings, wrapped paragraphs,
 * lists, highlighted code, quotes and boxed tables. Tables wider than the terminal are wrapped,
 * and split into blocks of columns that repeat the first (index) column, as pandas prints a wide
 * frame.
 */
import { Chalk } from 'chalk';
import { Lexer } from 'marked';
import { renderBlocks } from './markdownBlocks.js';
import { stylesFor } from './markdownInline.js';

export { planColumns } from './markdownTable.js';

/** Characters of markdown rendered; the rest is left out with a notice (rendering is synchronous). */
export const MARKDOWN_LIMIT = 48 * 1024;

export interface MarkdownOptions {
  /** ANSI colours and styles (default: whether chalk sees a colour terminal). */
  color?: boolean;
}

/**
 * Markdown as terminal text `width` columns wide: styled headings, wrapped paragraphs, bulleted and
 * numbered lists, indented code, boxed tables. Input beyond MARKDOWN_LIMIT characters is cut at a
 * line end, with a notice.
 */
export function renderMarkdown(markdown: string, width: number, options: MarkdownOptions = {}): string {
  const color = options.color ?? new Chalk().level > 0;
  const cols = Math.max(20, Math.floor(width) || 80);
  let source = markdown;
  let notice = '';
  if (source.length > MARKDOWN_LIMIT) {
    const cut = source.lastIndexOf('\n', MARKDOWN_LIMIT);
    const at = cut > 0 ? cut : MARKDOWN_LIMIT;
    notice = `[${(source.length - at).toLocaleString('en-US')} more characters of markdown not rendered]`;
    source = source.slice(0, at);
  }
  let text: string;
  try {
    text = renderBlocks(Lexer.lex(source), cols, stylesFor(color)).join('\n');
  } catch {
    text = source;
  }
  text = text.replace(/\s+$/, '');
  return notice ? `${text}\n\n${notice}` : text;
}
