/** Syntax highlighting of cell code (Python or JavaScript), with highlight.js through cli-highlight. */
import { highlight } from 'cli-highlight';
import type { CellLanguage } from '../../eval/index.js';

const cache = new Map<string, string>();
const HIGHLIGHT_LANGUAGE: Record<CellLanguage, string> = { py: 'python', js: 'javascript' };

export function highlightCode(code: string, color: boolean, language: CellLanguage = 'py'): string {
  if (!color) return code;
  const key = `${language}\0${code}`;
  let out = cache.get(key);
  if (out === undefined) {
    try {
      out = highlight(code, { language: HIGHLIGHT_LANGUAGE[language], ignoreIllegals: true });
    } catch {
      out = code;
    }
    if (cache.size > 2000) cache.clear();
    cache.set(key, out);
  }
  return out;
}
