/**
 * HTML → markdown, for bundles whose best text form is HTML (a pandas DataFrame): turndown (loaded
 * when the first HTML arrives), with a table rule of our own (GFM tables; row and column spans are
 * expanded, several header rows merged) since turndown's core keeps no tables.
 */
import { createRequire } from 'node:module';
import type TurndownService from 'turndown';

/** Characters of HTML converted to markdown; the rest is cut (about 35 ms at the limit). */
export const HTML_LIMIT = 64 * 1024;

const megabytes = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;
const kilobytes = (bytes: number) => `${Math.round(bytes / 1e3)} kB`;

// Private-use characters mark cells and rows in turndown's output for the table rule to parse.
const CELL = '\uE000';
const CELL_END = '\uE001';
const ROW = '\uE002';
const CAPTION = '\uE003';
const MARKERS = /[\uE000-\uE003]/g;

interface Cell {
  text: string;
  header: boolean;
  colspan: number;
  rowspan: number;
}

const require = createRequire(import.meta.url);
let service: TurndownService | undefined;

/** Loaded on first use: turndown and its DOM cost about 30 ms to import. */
function turndown(): TurndownService {
  if (service) return service;
  const Turndown = require('turndown') as typeof TurndownService;
  const td = new Turndown({
    headingStyle: 'atx',
    codeBlockStyle: 'fenced',
    bulletListMarker: '-',
    emDelimiter: '*',
  });
  td.remove(['style', 'script', 'noscript', 'template', 'head', 'title', 'meta', 'link', 'iframe', 'object']);
  const span = (el: HTMLElement, name: string) => {
    const n = Number.parseInt(el.getAttribute(name) ?? '1', 10);
    return Number.isFinite(n) ? Math.min(Math.max(n, 1), 1000) : 1;
  };
  td.addRule('ompCell', {
    filter: ['th', 'td'],
    replacement: (content, node) => {
      const el = node as HTMLElement;
      const kind = el.nodeName === 'TH' ? 'h' : 'd';
      return `${CELL}${kind}${span(el, 'colspan')},${span(el, 'rowspan')}:${content}${CELL_END}`;
    },
  });
  td.addRule('ompRow', {
    filter: 'tr',
    replacement: (content, node) => `${ROW}${node.parentNode?.nodeName === 'THEAD' ? 'h' : 'b'}${content}\n`,
  });
  td.addRule('ompCaption', {
    filter: 'caption',
    replacement: (content) => `${CAPTION}${content}${CELL_END}`,
  });
  td.addRule('ompTable', {
    filter: 'table',
    replacement: (content) => `\n\n${tableMarkdown(content)}\n\n`,
  });
  service = td;
  return td;
}

/** One line of a table cell: no line breaks, pipes escaped. */
const cellLine = (text: string) =>
  text
    .replace(/\s*\n\s*/g, ' ')
    .replace(/\|/g, '\\|')
    .trim();

const NUMERIC = /^([-+]?(\d[\d,_]*\.?\d*|\.\d+)([eE][-+]?\d+)?%?|[-+]?inf|nan|NaN|NaT|None|<NA>|\.\.\.|…)$/;

/** The GFM table for the table rule's marked-up content. */
function tableMarkdown(content: string): string {
  let caption = '';
  const rows: { head: boolean; cells: Cell[] }[] = [];
  const cellRe = /\uE000([hd])(\d+),(\d+):([\s\S]*?)\uE001/g;
  for (const part of content.split(ROW)) {
    const cap = part.indexOf(CAPTION);
    if (cap >= 0) caption = cellLine(part.slice(cap + 1, part.indexOf(CELL_END, cap)));
    if (!part || (part[0] !== 'h' && part[0] !== 'b')) continue;
    const cells: Cell[] = [];
    for (const m of part.matchAll(cellRe)) {
      cells.push({
        header: m[1] === 'h',
        colspan: Number(m[2]),
        rowspan: Number(m[3]),
        text: cellLine(m[4] ?? ''),
      });
    }
    if (cells.length) rows.push({ head: part[0] === 'h', cells });
  }
  if (!rows.length) return caption;
  // Header rows: those in <thead>, else leading rows of <th> only, else the first row.
  let heads = rows.findIndex((r) => !r.head);
  if (heads < 0) heads = rows.length;
  if (heads === 0) {
    while (heads < rows.length && rows[heads]?.cells.every((c) => c.header)) heads++;
    if (heads === 0) heads = 1;
  }
  const grid = expandSpans(rows.map((r, i) => ({ cells: r.cells, repeat: i < heads })));
  const width = Math.max(...grid.map((r) => r.length));
  const fill = (r: string[]) => Array.from({ length: width }, (_, i) => r[i] ?? '');
  const headRows = grid.slice(0, heads).map(fill);
  const body = grid.slice(heads).map(fill);
  const header = Array.from({ length: width }, (_, i) => {
    const parts: string[] = [];
    for (const r of headRows) {
      const t = r[i] ?? '';
      if (t && parts.at(-1) !== t) parts.push(t);
    }
    return parts.join(' / ');
  });
  const align = Array.from({ length: width }, (_, i) => {
    const values = body.map((r) => r[i] ?? '').filter((t) => t !== '');
    return values.length > 0 && values.every((t) => NUMERIC.test(t)) ? '---:' : '---';
  });
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  const table = [line(header), line(align), ...body.map(line)].join('\n');
  return caption ? `**${caption}**\n\n${table}` : table;
}

/**
 * Rows of cells with their spans → a grid. A cell spanning several rows is blank in the rows
 * below it (as pandas prints a sparse index); a cell spanning several columns is repeated in header
 * rows (so merged headers read "A / x") and blank after its first column elsewhere.
 */
function expandSpans(rows: { cells: Cell[]; repeat: boolean }[]): string[][] {
  const carry: number[] = []; // rows still covered by a rowspan, by column
  const grid: string[][] = [];
  for (const row of rows) {
    const out: string[] = [];
    let col = 0;
    const skipCovered = () => {
      while ((carry[col] ?? 0) > 0) {
        out[col] = '';
        carry[col] = (carry[col] ?? 1) - 1;
        col++;
      }
    };
    for (const cell of row.cells) {
      skipCovered();
      for (let k = 0; k < cell.colspan; k++) {
        out[col + k] = k === 0 || row.repeat ? cell.text : '';
        if (cell.rowspan > 1) carry[col + k] = cell.rowspan - 1;
      }
      col += cell.colspan;
    }
    while (col < carry.length) {
      if ((carry[col] ?? 0) > 0) {
        out[col] = '';
        carry[col] = (carry[col] ?? 1) - 1;
      }
      col++;
    }
    grid.push(Array.from(out, (t) => t ?? ''));
  }
  return grid;
}

/**
 * HTML → markdown. HTML beyond `limit` characters is cut at a row or tag boundary and the
 * markdown ends with a notice saying how much was left out.
 */
export function htmlToMarkdown(html: string, limit = HTML_LIMIT): string {
  let source = html;
  let notice = '';
  if (source.length > limit) {
    const head = source.slice(0, limit);
    let cut = head.toLowerCase().lastIndexOf('</tr>');
    cut = cut >= 0 ? cut + 5 : head.lastIndexOf('>') + 1;
    if (cut <= 0) cut = limit;
    const moreRows = countRows(source, cut);
    notice =
      `[output cut for display: the first ${kilobytes(cut)} of ${megabytes(source.length)} of HTML are shown` +
      `${moreRows > 0 ? `; ${moreRows.toLocaleString('en-US')} more table rows are not` : ''}]`;
    source = source.slice(0, cut);
  }
  source = source.replace(MARKERS, '');
  let markdown: string;
  try {
    markdown = turndown().turndown(source);
  } catch {
    markdown = htmlToText(source);
  }
  markdown = markdown.replace(MARKERS, '').trim();
  return notice ? `${markdown}\n\n${notice}` : markdown;
}

/** `<tr>` tags from `from` on. */
function countRows(html: string, from: number): number {
  const re = /<tr[\s>]/gi;
  re.lastIndex = from;
  let n = 0;
  while (re.exec(html)) n++;
  return n;
}

/** A plain-text reading of HTML: tags dropped, block ends as newlines, entities decoded. */
function htmlToText(html: string): string {
  return html
    .replace(/<(script|style)[\s\S]*?<\/\1>/gi, '')
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<\/(p|div|tr|h[1-6]|li|table|thead|tbody)>/gi, '\n')
    .replace(/<\/t[dh]>/gi, '\t')
    .replace(/<[^>]+>/g, '')
    .replace(/&nbsp;/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
