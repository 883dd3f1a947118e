/**
 * Where a user's `omp-eval mcp` servers publish their sessions: a directory only that user can
 * enter (`$XDG_RUNTIME_DIR/omp-eval` when that is the user's, else `$TMPDIR/omp-eval-<uid>`), made
 * 0700 and checked with lstat (a real directory, the user's, mode 0700), refused otherwise. It
 * holds one socket per server and `secret`, a 0600 file a client must present first.
 *
 * Why a secret: Node reads no peer credentials (SO_PEERCRED) off a Unix socket. The directory's
 * mode keeps other users away from the sockets; the secret makes the server check it too, at
 * each connection: only a process that can read the user's 0600 file gets an answer.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { closeSync, constants, lstatSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export class ShareDirError extends Error {
  override name = 'ShareDirError';
}

/** The current user's id (0 where the platform has none). */
export function currentUid(): number {
  return process.getuid?.() ?? 0;
}

/** The directory's path for `uid` (nothing is made or checked). */
export function shareDirPath(env: NodeJS.ProcessEnv = process.env, uid = currentUid()): string {
  const runtime = env.XDG_RUNTIME_DIR;
  if (runtime?.startsWith('/')) {
    try {
      const stat = lstatSync(runtime);
      if (stat.isDirectory() && stat.uid === uid) return join(runtime, 'omp-eval');
    } catch {
      // not there: the temp folder
    }
  }
  return join(env.TMPDIR || tmpdir(), `omp-eval-${uid}`);
}

/**
 * Why `path` is not a private directory of `uid` (a real directory, owned by it, mode 0700), or
 * undefined when it is one. `missing` when it does not exist.
 */
export function privateDirProblem(path: string, uid = currentUid()): string | undefined {
  let stat: ReturnType<typeof lstatSync>;
  try {
    stat = lstatSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 'missing';
    return `cannot be read (${(err as Error).message})`;
  }
  if (stat.isSymbolicLink()) return 'is a symbolic link, not a directory';
  if (!stat.isDirectory()) return 'is not a directory';
  if (stat.uid !== uid) return `belongs to uid ${stat.uid}, not to you (uid ${uid})`;
  const mode = stat.mode & 0o777;
  if (mode !== 0o700) return `has mode ${mode.toString(8).padStart(4, '0')}, not 0700`;
  return undefined;
}

/** Makes the directory (0700) if it is missing and checks it; throws ShareDirError when it is not private. */
export function openShareDir(path: string, uid = currentUid()): string {
  let problem = privateDirProblem(path, uid);
  if (problem === 'missing') {
    try {
      mkdirSync(path, { mode: 0o700 });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST')
        throw new ShareDirError(`cannot make ${path}: ${(err as Error).message}`);
    }
    problem = privateDirProblem(path, uid);
  }
  if (problem) throw new ShareDirError(`${path} ${problem}; refusing to use it (remove it, or fix it)`);
  return path;
}

/** The directory's secret, made on first use (a 0600 file of 32 random bytes, hex), checked as the directory is. */
export function shareSecret(dir: string, uid = currentUid()): string {
  const path = join(dir, 'secret');
  try {
    const fd = openSync(
      path,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
      0o600,
    );
    try {
      writeSync(fd, randomBytes(32).toString('hex'));
    } finally {
      closeSync(fd);
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST')
      throw new ShareDirError(`cannot make ${path}: ${(err as Error).message}`);
  }
  return readSecret(dir, uid);
}

/** The secret as it is (no file made): what a client presents. */
export function readSecret(dir: string, uid = currentUid()): string {
  const path = join(dir, 'secret');
  let stat: ReturnType<typeof lstatSync>;
  try {
    stat = lstatSync(path);
  } catch (err) {
    throw new ShareDirError(`cannot read ${path}: ${(err as Error).message}`);
  }
  if (!stat.isFile()) throw new ShareDirError(`${path} is not a regular file; refusing it`);
  if (stat.uid !== uid)
    throw new ShareDirError(`${path} belongs to uid ${stat.uid}, not to you; refusing it`);
  if (stat.mode & 0o077)
    throw new ShareDirError(`${path} has mode ${(stat.mode & 0o777).toString(8)}, not 0600; refusing it`);
  const secret = readFileSync(path, 'utf8').trim();
  // (a file cut short while another server wrote it: the next read has it)
  if (secret.length < 32) throw new ShareDirError(`${path} holds no secret yet; try again`);
  return secret;
}

/** Compares a presented secret with the real one in constant time. */
export function sameSecret(given: unknown, secret: string): boolean {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(given);
  const b = Buffer.from(secret);
  return a.length === b.length && timingSafeEqual(a, b);
}
