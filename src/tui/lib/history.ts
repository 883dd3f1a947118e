/**
 * Input history, kept across runs in the user's data directory (one JSON array of cells).
 */
import { lstatSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

export const HISTORY_LIMIT = 1000;

export function historyPath(env: NodeJS.ProcessEnv = process.env): string {
  if (env.OMP_EVAL_HISTORY) return env.OMP_EVAL_HISTORY;
  const base = env.XDG_DATA_HOME || join(env.HOME || homedir(), '.local', 'share');
  return join(base, 'omp-eval', 'history.json');
}

export function loadHistory(path: string): string[] {
  try {
    const parsed: unknown = JSON.parse(readFileSync(path, 'utf8'));
    return Array.isArray(parsed) ? parsed.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return []; // none yet, or unreadable: start empty rather than fail
  }
}

/** Only a regular file (or none) is replaced: never a device such as /dev/null, or a link. */
function isReplaceable(path: string): boolean {
  try {
    return lstatSync(path).isFile();
  } catch {
    return true;
  }
}

/** Adds an entry (dropping an identical previous one) and saves; saving errors are ignored. */
export function addToHistory(history: string[], entry: string, path?: string): string[] {
  if (!entry.trim()) return history;
  // Another notebook may have saved meanwhile: keep its entries too.
  const saved = path ? loadHistory(path) : [];
  const merged = [...saved, ...history.filter((h) => !saved.includes(h))];
  const next = [...merged.filter((h) => h !== entry), entry].slice(-HISTORY_LIMIT);
  if (path && isReplaceable(path)) {
    try {
      mkdirSync(dirname(path), { recursive: true });
      const tmp = `${path}.${process.pid}.tmp`;
      writeFileSync(tmp, JSON.stringify(next));
      renameSync(tmp, path);
    } catch {
      // a read-only home must not stop the notebook
    }
  }
  return next;
}

/** The newest entry before `from` containing `query` (Ctrl-R), with its index. */
export function searchHistory(history: string[], query: string, from = history.length): number {
  for (let i = Math.min(from, history.length) - 1; i >= 0; i--) {
    if ((history[i] as string).includes(query)) return i;
  }
  return -1;
}
