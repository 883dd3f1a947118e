/**
 * Markdown → text for the terminal: marked parses, marked-terminal renders (headings, lists, code,
 * tables through cli-table3). Tables wider than the terminal are wrapped, and split into blocks of
 * columns that repeat the first (index) column, as pandas prints a wide frame.
 */
import { createRequire } from 'node:module';
import { Chalk } from 'chalk';
import { Marked, type MarkedExtension, type Tokens } from 'marked';
import type * as MarkedTerminal from 'marked-terminal';
import stringWidth from 'string-width';
import { highlightCode } from './highlight.js';

/** Characters of markdown rendered; the rest is left out with a notice (rendering is synchronous). */
export const MARKDOWN_LIMIT = 48 * 1024;

export interface MarkdownOptions {
  /** ANSI colours and styles (default: whether chalk sees a colour terminal). */
  color?: boolean;
}

// marked-terminal takes ~70 ms to load: only when first needed.
const require = createRequire(import.meta.url);
let terminal: typeof MarkedTerminal | undefined;

// biome-ignore lint/suspicious/noControlCharactersInRegex: SGR escape sequences are what it matches
const ANSI = /\u001b\[[0-9;]*m/g;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it removes
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
// marked-terminal hides ':' in inline code behind this until it undoes it at paragraph level.
const COLON = /\*#COLON\|\*/g;
const visibleWidth = (s: string) => stringWidth(s.replace(COLON, ':'));
const MIN_COLUMN = 8;

const cache = new Map<string, Marked>();

function renderer(width: number, color: boolean): Marked {
  const key = `${width}:${color}`;
  const cached = cache.get(key);
  if (cached) return cached;
  terminal ??= require('marked-terminal') as typeof MarkedTerminal;
  const c = new Chalk({ level: color ? (Math.max(new Chalk().level, 1) as 1 | 2 | 3) : 0 });
  const id = (s: string) => s;
  const tableOptions: Record<string, unknown> = {
    style: { head: color ? ['bold'] : [], border: color ? ['grey'] : [] },
  };
  const base = terminal.markedTerminal({
    width,
    reflowText: true,
    emoji: false,
    tab: 2,
    tableOptions,
    code: c.yellow,
    blockquote: c.gray.italic,
    html: c.gray,
    heading: c.green.bold,
    firstHeading: c.magenta.underline.bold,
    hr: id,
    listitem: id,
    table: id,
    paragraph: id,
    strong: c.bold,
    em: c.italic,
    codespan: c.yellow,
    del: c.dim.gray.strikethrough,
    link: c.blue,
    href: c.blue.underline,
    text: id,
  }) as unknown as MarkedExtension & { renderer: Record<string, (...args: unknown[]) => string> };
  const baseTable = base.renderer.table as (this: unknown, token: Tokens.Table) => string;

  const overrides: MarkedExtension = {
    renderer: {
      // marked-terminal renders a text token as its raw text: a list item's text (whose inline
      // tokens hold its **bold**, `code` and links) stayed markup. Parsed as marked's own does.
      // (A hard break inside is marked-terminal's `\r`, which only its paragraphs make a newline.)
      text(token) {
        if (!('tokens' in token) || !token.tokens) return false;
        return this.parser.parseInline(token.tokens).replace(/\r/g, '\n');
      },
      // A task's checkbox is a token of its item (marked 15 on), and marked-terminal draws one
      // too: one is enough. (Its list renders its items itself, not through `listitem`.)
      list(token) {
        for (const item of token.items)
          if (item.task) item.tokens = item.tokens.filter((t) => t.type !== 'checkbox');
        return false;
      },
      // Links as "text (href)": terminal hyperlinks would be invisible to width measuring.
      link(token) {
        const text = this.parser.parseInline(token.tokens);
        const href = c.blue.underline(token.href);
        return text && text !== token.href ? `${c.blue(text)} (${href})` : href;
      },
      // Code blocks highlighted as cells are (highlight.js 11, the fence's grammar loaded when
      // first shown), not by marked-terminal's own highlighter; plain without colour.
      code(token: Tokens.Code) {
        const text = token.text.replace(CONTROL, '');
        const shown = color ? highlightCode(text, true, token.lang?.split(/\s/)[0] ?? '') : text;
        return `${shown.replace(/^/gm, '  ')}\n\n`;
      },
      table(token) {
        const cells = [token.header, ...token.rows];
        const natural = token.header.map(
          (_, i) =>
            Math.max(
              1,
              ...cells.map((row) => (row[i] ? visibleWidth(this.parser.parseInline(row[i].tokens)) : 0)),
            ) + 2,
        );
        const blocks = planColumns(natural, width);
        const out: string[] = [];
        for (const block of blocks) {
          const pick = <T>(row: T[]) => block.columns.map((i) => row[i] as T);
          if (block.widths) tableOptions.colWidths = block.widths;
          else delete tableOptions.colWidths;
          tableOptions.wordWrap = block.widths !== undefined;
          tableOptions.colAligns = pick(token.align).map((a) => a ?? 'left');
          const table = baseTable.call(this, {
            ...token,
            header: pick(token.header),
            rows: token.rows.map(pick),
            align: pick(token.align),
          });
          out.push(withoutBodyRules(table));
        }
        return out.join('');
      },
    },
  };
  const marked = new Marked().use(base, overrides);
  if (cache.size > 16) cache.clear();
  cache.set(key, marked);
  return marked;
}

/** Keeps the rule under the header and drops those between body rows: 60 rows stay 60 lines. */
function withoutBodyRules(table: string): string {
  let seen = false;
  return table
    .split('\n')
    .filter((line) => {
      if (!/^├[─┼]*┤$/.test(line.replace(ANSI, ''))) return true;
      const keep = !seen;
      seen = true;
      return keep;
    })
    .join('\n');
}

/**
 * Which columns go into which table, and their widths (undefined: the natural ones). `natural` are
 * the columns' widths with padding; a table is `sum + columns + 1` wide with its borders.
 */
export function planColumns(natural: number[], width: number): { columns: number[]; widths?: number[] }[] {
  const n = natural.length;
  const total = natural.reduce((a, b) => a + b, 0) + n + 1;
  if (total <= width || n === 0) return [{ columns: natural.map((_, i) => i) }];
  const cap = Math.max(MIN_COLUMN, Math.floor((width - 1) / 2) - 1);
  const capped = natural.map((w) => Math.min(w, cap));
  const first = capped[0] ?? 0;
  const keep = n > 2 && first + 1 <= Math.floor(width / 3); // repeat the index column in each block
  const blocks: { columns: number[]; widths?: number[] }[] = [];
  let columns: number[] = keep ? [0] : [];
  let used = 1 + (keep ? first + 1 : 0);
  for (let i = keep ? 1 : 0; i < n; i++) {
    const need = (capped[i] ?? 0) + 1;
    if (used + need > width && columns.length > (keep ? 1 : 0)) {
      blocks.push({ columns });
      columns = keep ? [0] : [];
      used = 1 + (keep ? first + 1 : 0);
    }
    columns.push(i);
    used += need;
  }
  blocks.push({ columns });
  for (const block of blocks) {
    const widths = block.columns.map((i) => capped[i] ?? MIN_COLUMN);
    const over = widths.reduce((a, b) => a + b, 0) + widths.length + 1 - width;
    if (over > 0) {
      const last = widths.length - 1;
      widths[last] = Math.max(MIN_COLUMN, (widths[last] ?? MIN_COLUMN) - over);
    }
    block.widths = widths;
  }
  return blocks;
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
    text = renderer(cols, color).parse(source, { async: false }) as string;
  } catch {
    text = source;
  }
  text = text.replace(/\s+$/, '');
  return notice ? `${text}\n\n${notice}` : text;
}
