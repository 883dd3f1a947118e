/**
 * The kernel's Python files are written once per content hash into a private cache under the OS
 * temp directory and reused by later spawns, but only after their content is checked.
 */
import {
  closeSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type writeFileAtomic from 'write-file-atomic';
import { type Logger, silentLogger } from '../logger.js';
import { nodeCrypto } from '../nodeCrypto.js';
import { reasonOf } from '../output/artifact.js';
import { isPrivate, privateDir, uid } from '../output/privateDir.js';
import { RUNNER_CACHE } from '../process/descriptors.js';
import { type BytecodeIo, bytecodeComplete, checkBytecode, ensureBytecode } from './bytecode.js';

const PY_DIR = new URL('../../py/', import.meta.url);

/** The .py files under a directory of src/py, as paths relative to src/py. */
function pythonFilesUnder(dir: string): string[] {
  return readdirSync(new URL(`${dir}/`, PY_DIR), { withFileTypes: true })
    .flatMap((entry) =>
      entry.isDirectory() && entry.name !== '__pycache__'
        ? pythonFilesUnder(`${dir}/${entry.name}`)
        : entry.name.endsWith('.py')
          ? [`${dir}/${entry.name}`]
          : [],
    )
    .sort();
}

/** The Python files a kernel runs: runner.py and the kernel package it loads from beside itself. */
export const KERNEL_FILES: readonly string[] = ['runner.py', ...pythonFilesUnder('omp_kernel')];
const PRELUDE_SOURCE_URL = new URL('prelude.py', PY_DIR);

let kernelSources: Record<string, string> | undefined;
let preludeSource: string | undefined;

/**
 * The build's record of the kernel's files (scripts/copy-assets.mjs writes it into dist/src/py):
 * their hash (kernelFilesHash), so that a start need not read and hash 300 KB of sources to name
 * their cache entry. Undefined from the sources (tests), or when it is unreadable.
 */
function shippedHash(): string | undefined {
  try {
    const { hash } = JSON.parse(readFileSync(new URL('kernel-files.json', PY_DIR), 'utf8')) as {
      hash?: unknown;
    };
    return typeof hash === 'string' && /^[0-9a-f]{16}$/.test(hash) ? hash : undefined;
  } catch {
    return undefined;
  }
}

/** The kernel's Python sources by file name, read once. */
export function getKernelSources(): Record<string, string> {
  kernelSources ??= Object.fromEntries(
    KERNEL_FILES.map((name) => [name, readFileSync(new URL(name, PY_DIR), 'utf8')]),
  );
  return kernelSources;
}

export function getPreludeSource(): string {
  preludeSource ??= readFileSync(PRELUDE_SOURCE_URL, 'utf8');
  return preludeSource;
}

const cacheDirs = new Map<string, string>();

/**
 * `<tmp>/omp-python-runner-<uid>`, or, when that one is not safe (another user made it, or a
 * link), a private fallback beside it: the same one on every run, not a new one each time.
 */
export function runnerCacheDir(base = tmpdir(), logger: Logger = silentLogger): string {
  const known = cacheDirs.get(base);
  if (known && isPrivate(known, 'dir')) return known;
  const dir = privateDir(base, RUNNER_CACHE, logger);
  cacheDirs.set(base, dir);
  return dir;
}

/** The sweeps below read whole directories (the system's temp holds thousands of entries): hourly. */
const SWEEP_INTERVAL_MS = 60 * 60 * 1000;

/**
 * True when the sweep `name` of the private cache `dir` last ran over an hour ago (or never), and
 * marks it as run now.
 */
function sweepDue(dir: string, name: string): boolean {
  const marker = join(dir, `.swept-${name}`);
  try {
    if (Date.now() - lstatSync(marker).mtimeMs < SWEEP_INTERVAL_MS) return false;
  } catch {
    // never swept
  }
  try {
    closeSync(openSync(marker, 'w', 0o600));
    touch(marker);
  } catch {
    // the sweep runs again next time
  }
  return true;
}

/** Other kernels' files in the cache unused this long are removed. */
const STALE_MS = 7 * 24 * 60 * 60 * 1000;

/** Removes the files of other kernel versions from the cache once they went unused for a week. */
function removeStaleVersions(base: string, current: string) {
  let names: string[];
  try {
    names = readdirSync(base).filter((n) => /^[0-9a-f]{16}$/.test(n) && n !== current);
  } catch {
    return;
  }
  for (const name of names) {
    const path = join(base, name);
    try {
      if (isPrivate(path, 'dir') && Date.now() - statSync(path).mtimeMs > STALE_MS)
        rmSync(path, { recursive: true, force: true });
    } catch {
      // raced with another process
    }
  }
}

// Loaded when a file must be written (rarely: once per content), not at every start.
const require = createRequire(import.meta.url);

/**
 * Writes `file` whole or not at all. write-file-atomic writes through a symlink to its target, so
 * whatever is at `file` is removed first: a link planted there is replaced, never followed. (The
 * directory is private to this user, so nobody can put one back in between.)
 */
function writeAtomically(file: string, content: string | Buffer) {
  // write-file-atomic writes through a link to its target: a link (anything not a plain file)
  // goes first. A file stays until the rename replaces it: removed first, it was missing for a
  // moment, and another process starting at once took the cache entry for tampered with.
  try {
    if (!lstatSync(file).isFile()) rmSync(file, { force: true });
  } catch {
    // nothing there
  }
  const atomic = require('write-file-atomic') as typeof writeFileAtomic;
  // (Our owner, said outright: write-file-atomic otherwise gives the new file the old one's.)
  const owner =
    process.getuid && process.getgid ? { chown: { uid: process.getuid(), gid: process.getgid() } } : {};
  atomic.sync(file, content, { mode: 0o600, fsync: true, ...owner });
}

/** The cache directory's name for a set of kernel files: a hash of all of them. */
export function kernelFilesHash(sources: Record<string, string>): string {
  const hash = nodeCrypto().createHash('sha256');
  for (const name of Object.keys(sources).sort())
    hash
      .update(name)
      .update('\0')
      .update(sources[name] as string);
  return hash.digest('hex').slice(0, 16);
}

export interface RunnerFileOptions {
  sources?: Record<string, string>;
  /** The cache directory (default: runnerCacheDir()). */
  base?: string;
  /** Told when a cached file or directory was not safe to use (it is never used then). */
  logger?: Logger;
}

/**
 * Writes the kernel's files into `<cache>/<hash>/` (hash of all of them), each atomically with
 * mode 0600, unless identical files are there; returns the path of runner.py. A file is reused
 * only when it is ours and its content matches.
 */
export function ensureRunnerFile(options: RunnerFileOptions = {}): string {
  const logger = options.logger ?? silentLogger;
  const given = options.sources;
  // (the shipped files: named by the build's hash, read only if a cached copy must be checked)
  const files: KernelFiles = given
    ? { names: Object.keys(given), hash: kernelFilesHash(given), sources: () => given }
    : {
        names: KERNEL_FILES,
        hash: shippedHash() ?? kernelFilesHash(getKernelSources()),
        sources: getKernelSources,
      };
  try {
    return ensureIn(options.base ?? runnerCacheDir(undefined, logger), files, logger);
  } catch (err) {
    throw new Error(`cannot write the kernel's files: ${reasonOf(err)}`);
  }
}

interface KernelFiles {
  names: readonly string[];
  /** kernelFilesHash of the sources: the cache entry's name. */
  hash: string;
  sources: () => Record<string, string>;
}

function ensureIn(base: string, files: KernelFiles, logger: Logger): string {
  const { hash } = files;
  const dir = join(base, hash);
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch {
    // exists already
  }
  if (!isPrivate(dir, 'dir')) {
    // (Only when `base` is not private either: the same fallback on every run.)
    const fallback = privateDir(base, RUNNER_CACHE, logger);
    logger.warn(`${dir} is not a private directory of this user; using ${fallback}`);
    return ensureIn(fallback, files, logger);
  }
  writeKernelFiles(dir, files, logger);
  touch(dir);
  if (sweepDue(base, 'versions')) removeStaleVersions(base, hash);
  return join(dir, 'runner.py');
}

/** Marks a cache entry as used now (stale entries are removed by their age). */
function touch(path: string) {
  try {
    const now = new Date();
    utimesSync(path, now, now);
  } catch {
    // not ours to touch: it stays
  }
}

/**
 * The kernel files the last start found intact, each by its identity (bytecodeIo.identity): a
 * file whose identity is unchanged since has the same bytes (any write, and any change of its
 * times, sets its change time, which no process can set back), so it is not read again. The
 * bytecode's check keeps the same record of its pycs (bytecode.ts).
 */
const FILES_CHECKED = 'files-checked.json';

function readFilesChecked(dir: string): Record<string, string> {
  const path = join(dir, FILES_CHECKED);
  try {
    if (isPrivate(path, 'file')) return JSON.parse(readFileSync(path, 'utf8')) as Record<string, string>;
  } catch {
    // unreadable: every file is checked in full
  }
  return {};
}

/** Writes each kernel file that is missing or not the expected file. */
function writeKernelFiles(dir: string, files: KernelFiles, logger: Logger) {
  const checked = readFilesChecked(dir);
  const found: Record<string, string> = {};
  let changed = false;
  for (const name of files.names) {
    const file = join(dir, name);
    const before = bytecodeIo.identity(file);
    if (before !== undefined && checked[name] === before) {
      found[name] = before;
      continue;
    }
    changed = true;
    const content = files.sources()[name] as string;
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    let present = true;
    try {
      lstatSync(file);
    } catch {
      present = false;
    }
    const intact = present && isPrivate(file, 'file') && readFileSync(file, 'utf8') === content;
    if (!intact) {
      if (present)
        logger.warn(`${file} was not the expected file (a link, another owner, or other content); replaced`);
      writeAtomically(file, content);
    }
    // (an intact file by its identity before it was read: one changed meanwhile has another by
    // the next start; a file written here by its identity after the write)
    const identity = intact ? before : bytecodeIo.identity(file);
    if (identity !== undefined) found[name] = identity;
  }
  if (changed || Object.keys(checked).length !== Object.keys(found).length) {
    try {
      writeAtomically(join(dir, FILES_CHECKED), JSON.stringify(found));
    } catch {
      // the next start checks in full again
    }
  }
}

const bytecodeIo: BytecodeIo = {
  isPrivateFile: (path) => isPrivate(path, 'file'),
  identity(path) {
    try {
      const st = lstatSync(path, { bigint: true });
      if (
        !st.isFile() ||
        (process.platform !== 'win32' && (st.uid !== BigInt(uid()) || (st.mode & 0o022n) !== 0n))
      )
        return undefined;
      return `${st.dev}:${st.ino}:${st.size}:${st.ctimeNs}`;
    } catch {
      return undefined;
    }
  },
  writeAtomically,
};

/**
 * Before a Python kernel starts from `runner`: the bytecode in its cache entry is what this host
 * recorded, and the interpreter has its own (compiled now, once per interpreter, its version and
 * the kernel's version).
 */
export async function prepareBytecode(
  runner: string,
  interpreter: { executable: string; version: string },
  hostEnv: NodeJS.ProcessEnv,
  logger: Logger = silentLogger,
  /** False: the interpreter is not run on the host (checkBytecode only; see spawn.ts). */
  compile = true,
): Promise<void> {
  const dir = dirname(runner);
  const packageDirs = [...new Set(KERNEL_FILES.map((file) => dirname(file)))];
  const manifests = checkBytecode(dir, packageDirs, bytecodeIo, logger);
  if (!compile) return;
  await ensureBytecode(dir, KERNEL_FILES, interpreter, hostEnv, bytecodeIo, logger, manifests);
}

/**
 * prepareBytecode's check without its compile, at once: true when the bytecode beside `runner` was
 * checked (checkBytecode) and the interpreter's is complete, so that prepareBytecode would do
 * nothing more and the runner may load its package now (a process spawned from a recipe:
 * quickstart.ts). False: prepareBytecode has work to do.
 */
export function bytecodeChecked(
  runner: string,
  interpreter: { executable: string; version: string },
  logger: Logger = silentLogger,
): boolean {
  const dir = dirname(runner);
  const packageDirs = [...new Set(KERNEL_FILES.map((file) => dirname(file)))];
  const manifests = checkBytecode(dir, packageDirs, bytecodeIo, logger);
  return bytecodeComplete(dir, interpreter, bytecodeIo, manifests);
}
