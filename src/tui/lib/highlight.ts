/** Python syntax highlighting for cell code, with highlight.js through cli-highlight. */
import { highlight } from 'cli-highlight';

const cache = new Map<string, string>();

export function highlightPython(code: string, color: boolean): string {
  if (!color) return code;
  let out = cache.get(code);
  if (out === undefined) {
    try {
      out = highlight(code, { language: 'python', ignoreIllegals: true });
    } catch {
      out = code;
    }
    if (cache.size > 2000) cache.clear();
    cache.set(code, out);
  }
  return out;
}
