/**
 * Directories under a shared temp directory that only this user can use (the artifacts, the
 * runner cache). The well-known name `<name>-<uid>` is used when it is a real directory of ours
 * that nobody else can write to. Another user can create that name first (a directory, a link):
 * then a private fallback `<name>-<uid>-XXXXXX` is used, the same one on every run (an earlier
 * run's is found again), so files named in one run can be read in the next.
 */
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { type Logger, silentLogger } from '../logger.js';

/** This user's id (-1 where there is none: Windows). */
export const uid = (): number => (typeof process.getuid === 'function' ? process.getuid() : -1);

/** `<name>-<uid>`: a well-known name under a shared directory, one per user. */
export const privateName = (name: string): string => (uid() >= 0 ? `${name}-${uid()}` : name);

/** True when `path` is a real directory or file (not a link) of ours that nobody else can write to. */
export function isPrivate(path: string, kind: 'dir' | 'file'): boolean {
  try {
    const st = lstatSync(path);
    if (kind === 'dir' ? !st.isDirectory() : !st.isFile()) return false;
    return process.platform === 'win32' || (st.uid === uid() && (st.mode & 0o022) === 0);
  } catch {
    return false;
  }
}

/** True when `path` is a private directory of ours (isPrivate). */
export const isPrivateDir = (path: string): boolean => isPrivate(path, 'dir');

/** Fallbacks not used for this long are removed (a race of two first runs can leave two). */
const STALE_MS = 24 * 60 * 60 * 1000;

/** The fallbacks of ours under `base` for `prefix`, the most recently used first. */
function fallbacks(base: string, prefix: string): { path: string; mtime: number }[] {
  let names: string[];
  try {
    names = readdirSync(base).filter(
      (n) => n.startsWith(prefix) && /^[A-Za-z0-9]{6}$/.test(n.slice(prefix.length)),
    );
  } catch {
    return [];
  }
  const mtime = (path: string) => {
    try {
      return statSync(path).mtimeMs;
    } catch {
      return 0;
    }
  };
  return names
    .map((n) => join(base, n))
    .filter(isPrivateDir)
    .map((path) => ({ path, mtime: mtime(path) }))
    .sort((a, b) => b.mtime - a.mtime);
}

/**
 * `<base>/<name>-<uid>` when it is private to this user, else a private fallback beside it (an
 * earlier run's, or a new one). Extra fallbacks of ours (from runs that raced) are removed once
 * they are a day old.
 */
export function privateDir(base: string, name: string, logger: Logger = silentLogger): string {
  const id = privateName(name);
  const preferred = join(base, id);
  try {
    mkdirSync(preferred, { mode: 0o700 });
  } catch {
    // exists already (ours or not): checked below
  }
  if (isPrivateDir(preferred)) return preferred;
  const [reused, ...extra] = fallbacks(base, `${id}-`);
  for (const old of extra)
    if (Date.now() - old.mtime > STALE_MS) rmSync(old.path, { recursive: true, force: true });
  const dir = reused?.path ?? mkdtempSync(join(base, `${id}-`));
  logger.warn(`${preferred} is not a private directory of this user; using ${dir}`);
  return dir;
}
