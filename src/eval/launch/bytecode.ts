/**
 * The kernel package's bytecode in the runner cache, checked like its source. Only the host
 * writes it: an interpreter compiles the package once (hash-based pycs, bound to their source)
 * and prints them; the host writes each file and records its SHA-256 in a manifest per
 * interpreter. Before every start, each pyc in the cache must be one the host recorded, byte for
 * byte, or it is removed: a tampered pyc (its header kept) never runs. runner.py never writes
 * bytecode there and reads only these files.
 */
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import type { Logger } from '../logger.js';
import { nodeCrypto } from '../nodeCrypto.js';
import { filterEnv } from './env.js';

/** How long the one compile of the package may take. */
const COMPILE_TIMEOUT_MS = 30_000;
/** A compile lock this old is left from a process that died while it held it. */
const LOCK_STALE_MS = COMPILE_TIMEOUT_MS + 30_000;

/** Prints {tag, files: {pyc path: base64}} for the .py files named on the command line. */
const COMPILE = `
import base64, importlib.util, json, os, py_compile, sys, tempfile
tag = sys.implementation.cache_tag
files = {}
if tag:
    sys.pycache_prefix = None
    tmp = tempfile.mkdtemp()
    try:
        for rel in sys.argv[1:]:
            out = os.path.join(tmp, "x.pyc")
            py_compile.compile(os.path.abspath(rel), cfile=out, doraise=True,
                               invalidation_mode=py_compile.PycInvalidationMode.CHECKED_HASH)
            head, name = os.path.split(rel)
            pyc = os.path.join(head, "__pycache__", "%s.%s.pyc" % (name[:-3], tag))
            with open(out, "rb") as f:
                files[pyc] = base64.b64encode(f.read()).decode()
    finally:
        for name in os.listdir(tmp):
            os.unlink(os.path.join(tmp, name))
        os.rmdir(tmp)
sys.stdout.write(json.dumps({"tag": tag, "files": files}))
`;

interface Manifest {
  executable: string;
  tag: string | null;
  /** pyc path relative to the cache entry → SHA-256 of its bytes. */
  files: Record<string, string>;
}

const sha256 = (data: Buffer | string) => nodeCrypto().createHash('sha256').update(data).digest('hex');
/** One manifest per interpreter and version: an interpreter upgraded in place gets its own. */
const manifestName = (executable: string, version: string) =>
  `bytecode-${sha256(`${executable}\0${version}`).slice(0, 16)}.json`;

export interface BytecodeIo {
  /** True when `path` is a regular file of this user that nobody else can write to. */
  isPrivateFile(path: string): boolean;
  /**
   * For such a file, a string that changes whenever its content may have (device, inode, size,
   * change time); undefined for anything else.
   */
  identity(path: string): string | undefined;
  /** Writes `data` to `path` whole or not at all, mode 0600, replacing whatever is there. */
  writeAtomically(path: string, data: string | Buffer): void;
}

/** The manifests in `dir` that are private files and parse. */
function readManifests(dir: string, io: BytecodeIo): Map<string, Manifest> {
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => /^bytecode-[0-9a-f]{16}\.json$/.test(n));
  } catch {
    return new Map();
  }
  return readManifestsNamed(dir, names, io);
}

/** The manifest `name` in `dir`, if it is a private file and parses. */
function readManifest(dir: string, name: string, io: BytecodeIo): Map<string, Manifest> {
  return readManifestsNamed(dir, [name], io);
}

function readManifestsNamed(dir: string, names: readonly string[], io: BytecodeIo): Map<string, Manifest> {
  const out = new Map<string, Manifest>();
  for (const name of names) {
    const path = join(dir, name);
    if (!io.isPrivateFile(path)) continue;
    let manifest: Manifest;
    try {
      manifest = JSON.parse(readFileSync(path, 'utf8')) as Manifest;
    } catch {
      continue; // unreadable: as if absent (the interpreter's bytecode is compiled again)
    }
    // The record of an interpreter that is gone (a removed venv) is dropped.
    if (typeof manifest.executable === 'string' && !existsSync(manifest.executable)) {
      rmSync(path, { force: true });
      continue;
    }
    out.set(name, manifest);
  }
  return out;
}

/** The manifests a check read, by file name: passed on to `ensureBytecode`, so it reads none again. */
export type Manifests = ReadonlyMap<string, Manifest>;

/**
 * The pycs the last check found recorded, each by its identity (`BytecodeIo.identity`): a file
 * whose identity is unchanged since has the same bytes (any write, and any change of its times,
 * sets its change time, which no process can set back), so it is not read and hashed again.
 */
const CHECKED = 'bytecode-checked.json';

function readChecked(dir: string, io: BytecodeIo): Record<string, string> {
  const path = join(dir, CHECKED);
  try {
    if (io.isPrivateFile(path)) return JSON.parse(readFileSync(path, 'utf8')) as Record<string, string>;
  } catch {
    // unreadable: every pyc is checked in full
  }
  return {};
}

/**
 * Removes every pyc under `dir`'s package directories that no manifest records with its exact
 * bytes. `packageDirs` are the directories of the kernel's files, relative to `dir`. Returns the
 * manifests it read last (none when every pyc was as the last check found it).
 */
export function checkBytecode(
  dir: string,
  packageDirs: readonly string[],
  io: BytecodeIo,
  logger: Logger,
): Manifests | undefined {
  const checked = readChecked(dir, io);
  const found: Record<string, string> = {};
  let manifests: Map<string, Manifest> | undefined;
  let known = new Set<string>();
  const readRecords = () => {
    manifests = readManifests(dir, io);
    known = new Set<string>();
    for (const manifest of manifests.values())
      for (const [file, hash] of Object.entries(manifest.files ?? {})) known.add(`${file}\0${hash}`);
  };
  let reread = false;
  for (const rel of pycsUnder(dir, packageDirs)) {
    const path = join(dir, rel);
    const identity = io.identity(path);
    if (identity !== undefined && checked[rel] === identity) {
      found[rel] = identity;
      continue;
    }
    // (read after its identity: a file changed in between has another one by the next check)
    const recorded = () => {
      try {
        return identity !== undefined && known.has(`${rel}\0${sha256(readFileSync(path))}`);
      } catch {
        return false;
      }
    };
    if (!manifests) readRecords();
    let ok = recorded();
    // Another omp-eval may have compiled meanwhile (its record is written before its files).
    if (!ok && !reread) {
      reread = true;
      readRecords();
      ok = recorded();
    }
    if (ok) {
      found[rel] = identity as string;
      continue;
    }
    logger.warn(`${path} is not bytecode omp-eval wrote (changed, or another's); removed`);
    rmSync(path, { recursive: true, force: true });
  }
  if (manifests || Object.keys(checked).length !== Object.keys(found).length) {
    try {
      io.writeAtomically(join(dir, CHECKED), JSON.stringify(found));
    } catch {
      // the next start checks in full again
    }
  }
  return manifests;
}

/** The pycs Python would read in the package directories (`<module>.<tag>.pyc`), relative to `dir`. */
function pycsUnder(dir: string, packageDirs: readonly string[]): string[] {
  return packageDirs.flatMap((pkg) => {
    try {
      return readdirSync(join(dir, pkg, '__pycache__'))
        .filter((name) => name.endsWith('.pyc'))
        .map((name) => join(pkg, '__pycache__', name));
    } catch {
      return [];
    }
  });
}

/** Compiles under way, by cache entry and interpreter. */
const compiles = new Map<string, Promise<void>>();
/** Compiles that failed in this process: not tried (nor warned about) again. */
const failed = new Set<string>();

/**
 * Makes sure `executable` has its recorded bytecode in `dir` (compiled once per interpreter and
 * kernel version; concurrent starts share the one compile). A failure only costs speed: the
 * kernel then compiles its modules from source.
 */
export function ensureBytecode(
  dir: string,
  sources: readonly string[],
  interpreter: { executable: string; version: string },
  hostEnv: NodeJS.ProcessEnv,
  io: BytecodeIo,
  logger: Logger,
  /** What `checkBytecode` read just before (undefined: it read none). */
  manifests: Manifests | undefined,
): Promise<void> {
  const { executable, version } = interpreter;
  const name = manifestName(executable, version);
  const manifestPath = join(dir, name);
  const key = `${dir}\0${executable}\0${version}`;
  const known = compiles.get(key);
  if (known) return known;
  if (failed.has(key)) return Promise.resolve();
  if (isComplete(dir, (manifests ?? readManifest(dir, name, io)).get(name))) return Promise.resolve();
  // One compiler per cache entry and interpreter, across processes: marshal's output is not the
  // same byte for byte from one run to the next, so two compiles would write pycs that the other's
  // manifest does not record (and a third start would remove them). A start that finds the lock
  // taken goes on without waiting: its kernel compiles what is missing in memory, this once.
  const lock = `${manifestPath}.lock`;
  if (!takeLock(lock)) return Promise.resolve();
  // (Another process may have compiled between the check and the lock.)
  if (isComplete(dir, readManifest(dir, name, io).get(name))) {
    rmSync(lock, { force: true });
    return Promise.resolve();
  }
  const compile = compileInto(dir, sources, executable, hostEnv, io, manifestPath)
    .finally(() => rmSync(lock, { force: true }))
    .catch((err: unknown) => {
      failed.add(key);
      logger.warn(
        `compiling the kernel's bytecode with ${executable} failed (its modules are compiled at each start instead): ${(err as Error).message}`,
      );
    })
    .finally(() => compiles.delete(key));
  compiles.set(key, compile);
  return compile;
}

/**
 * True when `executable` has its recorded bytecode in `dir` already: ensureBytecode would compile
 * nothing (`manifests`: what checkBytecode read just before, if anything).
 */
export function bytecodeComplete(
  dir: string,
  interpreter: { executable: string; version: string },
  io: BytecodeIo,
  manifests: Manifests | undefined,
): boolean {
  const name = manifestName(interpreter.executable, interpreter.version);
  return isComplete(dir, (manifests ?? readManifest(dir, name, io)).get(name));
}

/** True when `manifest` exists and each file it records is there. */
function isComplete(dir: string, manifest: Manifest | undefined): boolean {
  return (
    manifest !== undefined &&
    Object.keys(manifest.files ?? {}).every((file) => {
      try {
        return lstatSync(join(dir, file)).isFile();
      } catch {
        return false;
      }
    })
  );
}

/**
 * Creates `lock` (holding this process's pid) unless it exists; a lock whose process is gone, or
 * older than any compile, is taken over. True when this process holds it.
 */
function takeLock(lock: string): boolean {
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      writeFileSync(lock, String(process.pid), { flag: 'wx', mode: 0o600 });
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || !lockIsStale(lock)) return false;
      rmSync(lock, { force: true });
    }
  }
  return false;
}

function lockIsStale(lock: string): boolean {
  try {
    if (Date.now() - statSync(lock).mtimeMs > LOCK_STALE_MS) return true;
    const pid = Number(readFileSync(lock, 'utf8'));
    if (!Number.isSafeInteger(pid) || pid <= 0) return false; // being written: not stale
    process.kill(pid, 0);
    return false;
  } catch (err) {
    // ESRCH: its process is gone (EPERM: another user's process has that pid now); ENOENT: the
    // lock was just released.
    const code = (err as NodeJS.ErrnoException).code;
    return code === 'ESRCH' || code === 'EPERM' || code === 'ENOENT';
  }
}

async function compileInto(
  dir: string,
  sources: readonly string[],
  executable: string,
  hostEnv: NodeJS.ProcessEnv,
  io: BytecodeIo,
  manifestPath: string,
): Promise<void> {
  // (the sandbox's and the host guard's modules, loaded only to compile)
  const { runGuarded } = await import('./guardedRun.js');
  const result = await runGuarded(executable, ['-I', '-B', '-c', COMPILE, ...sources], {
    env: filterEnv(hostEnv),
    cwd: dir,
    timeoutMs: COMPILE_TIMEOUT_MS,
    maxBuffer: 64 * 1024 * 1024,
    what: 'the compile',
  });
  if (result.failed) {
    throw new Error(
      (result.stderr || result.shortMessage || `exit code ${result.exitCode}`).trim().slice(-300),
    );
  }
  const { tag, files } = JSON.parse(result.stdout) as { tag: string | null; files: Record<string, string> };
  const manifest: Manifest = { executable, tag, files: {} };
  const written: [string, Buffer][] = [];
  for (const [rel, base64] of Object.entries(files)) {
    if (rel.startsWith('/') || rel.split('/').includes('..')) throw new Error(`unexpected path ${rel}`);
    const bytes = Buffer.from(base64, 'base64');
    written.push([join(dir, rel), bytes]);
    manifest.files[rel] = sha256(bytes);
  }
  // The record first: a start that checks the cache meanwhile keeps these files, not removes them.
  io.writeAtomically(manifestPath, JSON.stringify(manifest));
  for (const [path, bytes] of written) {
    privateDirectory(dirname(path));
    io.writeAtomically(path, bytes);
  }
}

/** Makes `path` a directory of this user's (a link or a file there is replaced). */
function privateDirectory(path: string) {
  try {
    if (lstatSync(path).isDirectory()) return;
    rmSync(path, { force: true });
  } catch {
    // absent
  }
  mkdirSync(path, { mode: 0o700 });
}
