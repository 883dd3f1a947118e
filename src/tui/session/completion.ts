/**
 * What Tab completes at the cursor: indentation after whitespace, a path inside a string
 * (`open("da` → `data/`), else names (and, after `[`, dictionary keys) from the kernel.
 */
import { readdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

export type CompletionContext =
  | { kind: 'indent' }
  | { kind: 'kernel' }
  /** A path: `text` is the string's content up to the cursor, which starts at `from`. */
  | { kind: 'path'; text: string; from: number };

/** The open string the cursor is in on this line, if any: its quote's offset. */
function openString(before: string): number | undefined {
  let quote: string | undefined;
  let start = -1;
  for (let i = 0; i < before.length; i++) {
    const ch = before[i];
    if (quote) {
      if (ch === '\\') i++;
      else if (ch === quote) quote = undefined;
    } else if (ch === '#') return undefined;
    else if (ch === '"' || ch === "'" || ch === '`') {
      quote = ch;
      start = i;
    }
  }
  return quote ? start : undefined;
}

export function completionContext(line: string, col: number): CompletionContext {
  const before = line.slice(0, col);
  if (!before.trim() || /\s$/.test(before)) return { kind: 'indent' };
  const quote = openString(before);
  if (quote === undefined) return { kind: 'kernel' };
  // d["al: a dictionary key, which the kernel knows.
  if (/\[\s*[rbuf]?$/i.test(before.slice(0, quote))) return { kind: 'kernel' };
  return { kind: 'path', text: before.slice(quote + 1), from: quote + 1 };
}

const PATH_LIMIT = 200;

/** Entries of the directory a partial path names that start with its last part. */
export function pathCompletions(text: string, cwd: string): { items: string[]; from: number; to: number } {
  const slash = text.lastIndexOf('/');
  const dirPart = slash === -1 ? '' : text.slice(0, slash + 1);
  const prefix = text.slice(slash + 1);
  const expanded = dirPart.startsWith('~/') ? join(homedir(), dirPart.slice(2)) : dirPart;
  const dir = resolve(cwd, expanded || '.');
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return { items: [], from: text.length, to: text.length };
  }
  const items = names
    .filter((n) => n.startsWith(prefix) && (prefix.startsWith('.') || !n.startsWith('.')))
    .sort()
    .slice(0, PATH_LIMIT)
    .map((n) => {
      try {
        return statSync(join(dir, n)).isDirectory() ? `${n}/` : n;
      } catch {
        return n;
      }
    });
  return { items, from: text.length - prefix.length, to: text.length };
}
