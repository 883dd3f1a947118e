/**
 * pyenv's shims, seen through without running them: a shim is a bash script that runs
 * `pyenv exec`, some 35 processes (bash, sed, tr…) and ~0.4 s of CPU before Python starts. The version
 * it would pick is read here as pyenv reads it, and mapped to the interpreter under
 * `$PYENV_ROOT/versions`. Anything unusual (`system`, a version pyenv would resolve by prefix, a
 * missing or unreadable file, PYENV_DIR) leaves the shim as it is: it is then run as before.
 *
 * A `.python-version` in a workspace is anyone's to write: its names only select among the
 * directories in `$PYENV_ROOT/versions` (a name with `/` or `..` is refused), so it cannot
 * point anywhere else.
 */
import {
  accessSync,
  closeSync,
  constants,
  fstatSync,
  openSync,
  readSync,
  realpathSync,
  statSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, join } from 'node:path';

export interface PyenvTarget {
  /** The interpreter the shim would run: `$PYENV_ROOT/versions/<version>/bin/<command>`. */
  executable: string;
  version: string;
  /** What set the version: `PYENV_VERSION`, or the version file's path. */
  origin: string;
}

/** pyenv's root: PYENV_ROOT, else ~/.pyenv. */
export function pyenvRoot(env: NodeJS.ProcessEnv, home = env.HOME || homedir()): string {
  return env.PYENV_ROOT || join(home, '.pyenv');
}

const realOr = (path: string): string | undefined => {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
};

/** Reads at most 4 KiB of a regular file (never blocks on a FIFO); undefined for anything else. */
function readSmallFile(path: string): string | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
    if (!fstatSync(fd).isFile()) return undefined;
    const buf = Buffer.alloc(4096);
    const n = readSync(fd, buf, 0, buf.length, 0);
    return buf.subarray(0, n).toString('utf8');
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** The versions a version file names, as `pyenv version-file-read` reads them: a line's first word. */
function readVersionFile(path: string): string[] | undefined {
  const text = readSmallFile(path);
  if (text === undefined) return undefined;
  const out: string[] = [];
  for (const line of text.split(/\r?\n|\r/)) {
    const word = line.trim().split(/\s+/)[0];
    if (word && !word.startsWith('#')) out.push(word);
  }
  return out;
}

/** The nearest `.python-version` from `cwd` upwards (whatever it is: one that is no file is not plain). */
function localVersionFile(cwd: string): string | undefined {
  for (let dir = cwd; ; dir = dirname(dir)) {
    const file = join(dir, '.python-version');
    if (statSync(file, { throwIfNoEntry: false })) return file;
    if (dirname(dir) === dir) return undefined;
  }
}

/** A name that can only be a directory directly in `versions/`. */
const safeName = (v: string) => v !== '.' && !v.includes('..') && !/[/\\\0]/.test(v);

const isExecutableFile = (path: string): boolean => {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

/**
 * The interpreter a pyenv shim at `path` would run from `cwd`, or undefined when `path` is not
 * a shim of this pyenv or the answer is not plain (the shim must then be run).
 */
export function pyenvTarget(
  path: string,
  env: NodeJS.ProcessEnv,
  cwd: string,
  home?: string,
): PyenvTarget | undefined {
  if (process.platform === 'win32' || !path.includes('/')) return undefined;
  const root = pyenvRoot(env, home);
  const shims = join(root, 'shims');
  const real = realOr(path);
  const realShims = realOr(shims);
  if (!real || !realShims) return undefined;
  const inShims = dirname(path) === shims || dirname(real) === realShims;
  // The shim runs the command it was called as; a link of another name is not plain.
  const command = basename(path);
  if (!inShims || basename(real) !== command) return undefined;
  // (pyenv looks from PYENV_DIR first: not plain)
  if (env.PYENV_DIR) return undefined;
  let versions: string[] | undefined;
  let origin: string;
  if (env.PYENV_VERSION) {
    versions = env.PYENV_VERSION.split(':').filter(Boolean);
    origin = 'PYENV_VERSION';
  } else {
    origin = localVersionFile(cwd) ?? join(root, 'version');
    versions = readVersionFile(origin);
  }
  if (!versions?.length) return undefined; // none, or unreadable: pyenv's `system`, or its error
  for (const version of versions) {
    if (version === 'system' || !safeName(version)) return undefined;
    const dir = join(root, 'versions', version);
    // Not installed by that name: pyenv would resolve it as a prefix (`3.11`, `python-3.12`).
    if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory()) return undefined;
    const executable = join(dir, 'bin', command);
    if (isExecutableFile(executable)) return { executable, version, origin };
    // (the first version with the command wins: `python3` is not in a 2.7)
  }
  return undefined;
}
