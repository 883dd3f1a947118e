/**
 * Input history, kept across runs in the user's data directory (one JSON array of cells).
 *
 * Several notebooks may add entries at once: each write happens under a lock file and merges
 * what is on disk, so no entry is lost. The file is replaced atomically (write-file-atomic);
 * a temporary file left by a writer that was killed is removed by the next writer. The file is
 * private (0600 in a 0700 directory) and bounded: an entry over MAX_ENTRY_CHARS stays in this
 * session's memory only, and the oldest entries go first past HISTORY_LIMIT or MAX_FILE_CHARS.
 */
import {
  chmodSync,
  closeSync,
  constants,
  fstatSync,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  type Stats,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import type writeFileAtomic from 'write-file-atomic';

export const HISTORY_LIMIT = 1000;
/** The longest entry that is saved (a pasted script; not a 10 MB data dump). */
export const MAX_ENTRY_CHARS = 100_000;
/** The most the file holds, so that reading it on every Enter stays cheap. */
export const MAX_FILE_CHARS = 4_000_000;
/** A lock older than this is a dead writer's. */
const STALE_LOCK_MS = 10_000;
/**
 * How long a writer waits for another's lock before it writes anyway (the notebook waits with
 * it): 2 s, or $OMP_EVAL_HISTORY_LOCK_MS (the tests', whose writers a loaded machine may hold up).
 */
function lockWaitMs(): number {
  return Number(process.env.OMP_EVAL_HISTORY_LOCK_MS) || 2_000;
}

const require = createRequire(import.meta.url);

export type HistoryNotice = (message: string) => void;

export function historyPath(env: NodeJS.ProcessEnv = process.env): string {
  if (env.OMP_EVAL_HISTORY) return env.OMP_EVAL_HISTORY;
  const base = env.XDG_DATA_HOME || join(env.HOME || homedir(), '.local', 'share');
  return join(base, 'omp-eval', 'history.json');
}

/** The largest file read: MAX_FILE_CHARS of JSON, every character escaped at worst. */
const MAX_FILE_BYTES = MAX_FILE_CHARS * 6 + 1024;

/** What kind of file `st` is, for a notice. */
function fileKind(st: Stats): string {
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a FIFO';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  return 'not a regular file';
}

/**
 * The saved entries. Only a regular file is read: the file is opened without following a link and
 * without blocking, and checked on the open file, so that a FIFO (or a device) at the path cannot
 * hang the notebook before it draws (a blocked read ignores SIGTERM too). Anything else gives one
 * notice and no history; addToHistory never writes over it either (isReplaceable).
 */
export function loadHistory(path: string, notify: HistoryNotice = () => {}): string[] {
  const unused = (what: string) => {
    notify(
      `history: ${path} is ${what}, not a regular file; this session has no saved history and writes none`,
    );
    return [];
  };
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ELOOP') return unused('a symbolic link');
    return []; // none yet, or unreadable: start empty rather than fail
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return unused(fileKind(st));
    if (st.size > MAX_FILE_BYTES) {
      notify(
        `history: ${path} is larger than a history file omp-eval writes; it is not read, and the next cell saved replaces it`,
      );
      return [];
    }
    const buffer = Buffer.alloc(st.size);
    let length = 0;
    for (let n = 1; n > 0 && length < buffer.length; length += n)
      n = readSync(fd, buffer, length, buffer.length - length, null);
    const parsed: unknown = JSON.parse(buffer.toString('utf8', 0, length));
    return Array.isArray(parsed) ? parsed.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return []; // unreadable or not JSON: start empty rather than fail
  } finally {
    closeSync(fd);
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

const sleepSync = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Takes `path`.lock (a file holding the writer's pid); false when it stayed taken. */
function takeLock(lock: string): boolean {
  const until = Date.now() + lockWaitMs();
  let links = true;
  for (;;) {
    if (links ? takeLinked(lock, () => (links = false)) : takeInPlace(lock)) return true;
    try {
      const owner = Number(readFileSync(lock, 'utf8'));
      const old = Date.now() - statSync(lock).mtimeMs > STALE_LOCK_MS;
      if (old || (owner > 0 && !pidAlive(owner))) unlinkSync(lock);
    } catch {
      // released meanwhile
    }
    if (Date.now() > until) return false;
    sleepSync(5);
  }
}

/**
 * The lock, appearing with its pid already in it (a link to a written file), so another writer
 * never reads a half-written pid and takes a live writer's lock for a dead one's. False when it
 * is taken; `noLinks` when the file system has no hard links (FAT, some network mounts).
 */
function takeLinked(lock: string, noLinks: () => void): boolean {
  const mine = `${lock}.${process.pid}`;
  try {
    const fd = openSync(mine, 'w', 0o600);
    writeSync(fd, String(process.pid));
    closeSync(fd);
    linkSync(mine, lock);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EPERM' || code === 'ENOTSUP' || code === 'EOPNOTSUPP') noLinks();
    // ENOENT: the lock holder removed this waiter's file as a leftover; it tries again.
    else if (code !== 'EEXIST' && code !== 'ENOENT') throw err;
    return false;
  } finally {
    try {
      unlinkSync(mine);
    } catch {
      // not made
    }
  }
}

/** The lock made by an exclusive create (where hard links are not to be had); false if taken. */
function takeInPlace(lock: string): boolean {
  try {
    const fd = openSync(lock, 'wx', 0o600);
    writeSync(fd, String(process.pid));
    closeSync(fd);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
}

/** Temporary files of writers that were killed (only the lock holder writes one). */
function removeLeftovers(path: string): void {
  const name = basename(path);
  for (const file of readdirSync(dirname(path))) {
    if (file.startsWith(`${name}.`) && /^(\d+|\d+\.tmp|lock\.\d+)$/.test(file.slice(name.length + 1))) {
      try {
        unlinkSync(join(dirname(path), file));
      } catch {
        // gone already
      }
    }
  }
}

/** The entries to save: the newest first to stay, within the entry, count and size caps. */
function bounded(entries: string[]): string[] {
  const kept: string[] = [];
  let chars = 0;
  for (let i = entries.length - 1; i >= 0 && kept.length < HISTORY_LIMIT; i--) {
    const entry = entries[i] as string;
    if (entry.length > MAX_ENTRY_CHARS) continue;
    if (chars + entry.length > MAX_FILE_CHARS) break;
    chars += entry.length;
    kept.push(entry);
  }
  return kept.reverse();
}

/** The directory is private; tightened when it is omp-eval's own. */
function privateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = statSync(dir);
  if (basename(dir) === 'omp-eval' && st.uid === process.getuid?.() && (st.mode & 0o077) !== 0)
    chmodSync(dir, 0o700);
}

/** Reads, merges with `add`, writes; under the lock. Returns what is on disk now. */
function saveEntry(path: string, entry: string): string[] {
  privateDir(dirname(path));
  const lock = `${path}.lock`;
  const locked = takeLock(lock);
  try {
    if (locked) removeLeftovers(path);
    const saved = loadHistory(path);
    const next = bounded([...saved.filter((h) => h !== entry), entry]);
    const atomic = require('write-file-atomic') as typeof writeFileAtomic;
    atomic.sync(path, JSON.stringify(next), { mode: 0o600, fsync: false });
    return next;
  } finally {
    if (locked) unlinkSync(lock);
  }
}

/** Paths whose write failure was already reported: one notice per file, not one per Enter. */
const reported = new Set<string>();

/**
 * Adds an entry (dropping an identical previous one) and saves it, merged with what other
 * notebooks saved meanwhile. A file that cannot be written gives one notice; the history then
 * lives in memory for this session.
 */
export function addToHistory(
  history: string[],
  entry: string,
  path?: string,
  notify: HistoryNotice = () => {},
): string[] {
  if (!entry.trim()) return history;
  const inMemory = [...history.filter((h) => h !== entry), entry].slice(-HISTORY_LIMIT);
  if (!path || !isReplaceable(path)) return inMemory;
  if (entry.length > MAX_ENTRY_CHARS) {
    notify(
      `history: this cell (${entry.length.toLocaleString('en-US')} characters) is kept for this session only; cells over ${MAX_ENTRY_CHARS.toLocaleString('en-US')} characters are not saved`,
    );
    return inMemory;
  }
  try {
    const saved = saveEntry(path, entry);
    // This session's unsaved entries (too long to save) stay reachable too.
    const onDisk = new Set(saved);
    return [...inMemory.filter((h) => !onDisk.has(h) && h !== entry), ...saved].slice(-HISTORY_LIMIT);
  } catch (err) {
    if (!reported.has(path)) {
      reported.add(path);
      notify(
        `history: cannot save to ${path} (${(err as Error).message}); this session's history is kept in memory only`,
      );
    }
    return inMemory;
  }
}

/** The newest entry before `from` containing `query` (Ctrl-R), with its index. */
export function searchHistory(history: string[], query: string, from = history.length): number {
  for (let i = Math.min(from, history.length) - 1; i >= 0; i--) {
    if ((history[i] as string).includes(query)) return i;
  }
  return -1;
}
