/**
 * Ink's build/wrap-text.js, as the Ink bundle gets it (scripts/bundle-ink.mjs): the same wrapping
 * and truncation, with two changes.
 * - A truncated line is never wider than its box. cli-truncate can leave it one column too wide
 *   when a wide character (CJK, emoji) meets the cut; the terminal then wraps the last column, a
 *   live frame is one row taller than Ink thinks, and each redraw leaves a stale row behind.
 * - The cache is bounded. Ink's kept every text it ever wrapped, for as long as the session lasted.
 */
import cliTruncate from 'cli-truncate';
import wrapAnsi from 'wrap-ansi';
import { columnsOf, keep } from './textWidth.js';

type WrapType = 'wrap' | 'truncate' | 'truncate-end' | 'truncate-middle' | 'truncate-start';

const wrapped = new Map<string, string>();
/** Texts longer than this are not kept. */
const CACHED_CHARS = 10_000;

/** `text` cut to at most `columns` columns, with an ellipsis where it was cut. */
export function truncateText(
  text: string,
  columns: number,
  position: 'start' | 'middle' | 'end' = 'end',
): string {
  let out = cliTruncate(text, columns, { position });
  for (let cut = columns - 1; cut > 0 && columnsOf(out) > columns; cut--)
    out = cliTruncate(text, cut, { position });
  return out;
}

function wrapOnce(text: string, maxWidth: number, wrapType: WrapType): string {
  if (wrapType === 'wrap') return wrapAnsi(text, maxWidth, { trim: false, hard: true });
  if (wrapType.startsWith('truncate')) {
    const position =
      wrapType === 'truncate-middle' ? 'middle' : wrapType === 'truncate-start' ? 'start' : 'end';
    return truncateText(text, maxWidth, position);
  }
  return text;
}

/** Ink's wrapText: `text` wrapped or truncated to `maxWidth` columns. */
export default function wrapText(text: string, maxWidth: number, wrapType: WrapType): string {
  if (text.length > CACHED_CHARS) return wrapOnce(text, maxWidth, wrapType);
  const key = `${maxWidth}\0${wrapType}\0${text}`;
  let out = wrapped.get(key);
  if (out === undefined) {
    out = wrapOnce(text, maxWidth, wrapType);
    keep(wrapped, key, out, Number.POSITIVE_INFINITY);
  }
  return out;
}
