/**
 * Styled text laid out in terminal columns: words measured as the notebook measures its rows (CJK
 * and most emoji take two columns, SGR escape codes none; printable ASCII without string-width's
 * grapheme segmenting, which was most of a render's time), cut by graphemes, and lines that each
 * close the styles they leave open, so that a line can be shown, or cut away, on its own (the
 * notebook's previews do).
 */
import { columnsOf } from '../text/textWidth.js';

// biome-ignore lint/suspicious/noControlCharactersInRegex: SGR escape sequences are what it matches
const SGR = /\u001b\[[0-9;]*m/g;
// biome-ignore lint/suspicious/noControlCharactersInRegex: SGR escape sequences are what it matches
const SGR_SPLIT = /(\u001b\[[0-9;]*m)/;
const graphemes = new Intl.Segmenter();

/** `text`'s width in terminal columns. */
export const columns = columnsOf;
/** A grapheme's columns: one for printable ASCII, as fast as it can be told. */
const graphemeWidth = (g: string) => (g.length === 1 && g >= ' ' && g <= '~' ? 1 : columnsOf(g));

/**
 * The longest start of `text` at most `width` columns wide, and the rest. Escape codes before the
 * cut go with the start; a grapheme wider than `width` is taken whole rather than never.
 */
function cut(text: string, width: number): [string, string] {
  let head = '';
  let used = 0;
  let any = false; // (a grapheme in head)
  const parts = text.split(SGR_SPLIT);
  for (let p = 0; p < parts.length; p++) {
    const part = parts[p] ?? '';
    if (p % 2 === 1) {
      head += part;
      continue;
    }
    for (const { segment, index } of graphemes.segment(part)) {
      const w = graphemeWidth(segment);
      if (used + w > width && any) {
        return [head, part.slice(index) + parts.slice(p + 1).join('')];
      }
      head += segment;
      used += w;
      any = true;
    }
  }
  return [head, ''];
}

/**
 * `text` wrapped at `width` columns. `\n` is a hard break; within a line, runs of spaces and tabs
 * are one space. A word wider than the line is cut: it starts where it would have begun and goes
 * on over as many lines as it needs.
 */
export function reflow(text: string, width: number): string[] {
  const out: string[] = [];
  text.split('\n').forEach((section, index) => {
    let line = '';
    let col = 0;
    let pending = ''; // escape codes between spaces: they belong to the next word
    for (const raw of section.split(/[ \t]+/)) {
      const w = columns(raw);
      if (w === 0) {
        pending += raw;
        continue;
      }
      let word = pending + raw;
      pending = '';
      if (col > 0 && col + 1 + w <= width) {
        line += ` ${word}`;
        col += 1 + w;
        continue;
      }
      if (w <= width) {
        if (col > 0) out.push(line);
        line = word;
        col = w;
        continue;
      }
      // Wider than a whole line: what fits after the current text, then lines full of it.
      if (col > 0 && width - col - 1 > 0) {
        const [head, rest] = cut(word, width - col - 1);
        out.push(`${line} ${head}`);
        word = rest;
      } else if (col > 0) out.push(line);
      for (;;) {
        const [head, rest] = cut(word, width);
        if (rest === '' || columns(rest) === 0) {
          line = head + rest;
          col = columns(line);
          break;
        }
        out.push(head);
        word = rest;
      }
    }
    line += pending;
    if (col > 0 || line !== '' || index > 0) out.push(line); // (two hard breaks: an empty line)
  });
  return balance(out);
}

/** `text` cut to `width` columns with an ellipsis, when it is wider. */
export function truncate(text: string, width: number): string {
  if (columns(text) <= width) return text;
  return `${cut(text, Math.max(0, width - 1))[0]}…`;
}

/** The code that ends what `code` (the parameters of one SGR sequence) starts; undefined: a reset. */
function closerOf(code: string): string | undefined {
  const n = Number(code.split(';')[0] || '0');
  if (n === 0) return undefined;
  if (n === 1 || n === 2) return '22';
  if (n >= 3 && n <= 9) return String(20 + n);
  if ((n >= 30 && n <= 38) || (n >= 90 && n <= 97)) return '39';
  if ((n >= 40 && n <= 48) || (n >= 100 && n <= 107)) return '49';
  return String(n); // a closing code, or one it does not know: nothing to carry over
}

/** The lines, each opening the styles left open before it and closing those it leaves open. */
export function balance(lines: string[]): string[] {
  // closer → the sequences that opened what it closes, in order
  let open = new Map<string, string[]>();
  return lines.map((line) => {
    const prefix = [...open.values()].flat().join('');
    for (const seq of line.match(SGR) ?? []) {
      const code = seq.slice(2, -1);
      const closer = closerOf(code);
      if (closer === undefined) open = new Map();
      else if (closer === code) open.delete(code);
      else open.set(closer, [...(closer === '22' ? (open.get(closer) ?? []) : []), seq]);
    }
    if (line.replace(SGR, '') === '') return line === '' ? '' : prefix + line;
    const suffix = [...open.keys()].map((closer) => `\u001b[${closer}m`).join('');
    return prefix + line + suffix;
  });
}
