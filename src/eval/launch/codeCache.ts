/**
 * `run` and `tool` load the CLI as one classic script (dist/cli/fast.cjs, scripts/bundle-cli.mjs)
 * compiled from V8's code cache of an earlier call: what a call spent parsing and compiling the
 * ES-module chunks, the functions it ran included, is read back instead (bin/omp-eval.js).
 * Node 20 has no code cache for ES modules, and Node 22's `module.enableCompileCache()` keeps only
 * what is compiled before a module runs (measured: no gain; docs/performance.md, step 6).
 *
 * The cache is a file per bundle, command, Node and V8 flags, in a private directory under the
 * temp directory, as the runner cache (`<tmp>/omp-eval-code-cache-<uid>`, mode 0700, files 0600):
 * another omp-eval, another Node or other flags never read it. Its content is checked (a digest)
 * before V8, which checks its own version, flags and the source's length, is given it; anything
 * wrong (a missing, garbage or foreign file, a directory that cannot be made or written) only
 * means compiling as without it, and the cache is written anew when the call ends.
 * OMP_EVAL_PERF_OFF=code-cache: the ES-module chunks, as before (src/eval/perfOff.ts).
 */
import {
  closeSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';
import { nodeCrypto } from '../nodeCrypto.js';
import { isPrivate, privateDir } from '../output/privateDir.js';
import { perfOff } from '../perfOff.js';
import { CODE_CACHE } from '../process/descriptors.js';

/** The bundle's first line names its content: `//omp-eval-bundle <hex digest>` (the build writes it). */
const BUNDLE_TAG = /^\/\/omp-eval-bundle ([0-9a-f]{16,64})\n/;
/** A cache file: this, the SHA-256 of the rest, then V8's data. */
const MAGIC = Buffer.from('omp-eval code cache 1\n');
const DIGEST_BYTES = 32;
/** Another bundle's caches (an earlier omp-eval's) written this long ago are removed. */
const STALE_MS = 30 * 24 * 60 * 60 * 1000;

// (node:crypto loaded at the first use, not as the launcher loads: the recipe's kernel is spawned
// before it, launchEarly.ts)
const sha256 = (data: Uint8Array) => nodeCrypto().createHash('sha256').update(data).digest();

/** A short stable name for what else makes V8's data differ: the flags Node was given. */
function flagsKey(execArgv: readonly string[], env: NodeJS.ProcessEnv): string {
  const flags = JSON.stringify([execArgv, env.NODE_OPTIONS ?? '']);
  return sha256(Buffer.from(flags)).toString('hex').slice(0, 12);
}

/**
 * The cache file's name for a bundle (its digest), a command and this Node: a new omp-eval, Node,
 * architecture or set of flags has a file of its own.
 */
export function cacheFileName(
  bundle: string,
  name: string,
  opts: { version?: string; arch?: string; execArgv?: readonly string[]; env?: NodeJS.ProcessEnv } = {},
): string {
  const version = opts.version ?? process.version;
  const arch = opts.arch ?? process.arch;
  const flags = flagsKey(opts.execArgv ?? process.execArgv, opts.env ?? process.env);
  return `${bundle.slice(0, 16)}-${name}-${version}-${arch}-${flags}.bin`;
}

/** V8's data in `file` if the file is ours, private and whole (its digest matches). */
export function readCache(file: string): Buffer | undefined {
  try {
    if (!isPrivate(file, 'file')) return undefined;
    const data = readFileSync(file);
    const start = MAGIC.length + DIGEST_BYTES;
    if (data.length <= start || !data.subarray(0, MAGIC.length).equals(MAGIC)) return undefined;
    const payload = data.subarray(start);
    return sha256(payload).equals(data.subarray(MAGIC.length, start)) ? payload : undefined;
  } catch {
    return undefined;
  }
}

/** Writes V8's `data` to `file` (atomically, mode 0600), and removes other bundles' stale caches. */
export function writeCache(file: string, data: Buffer): void {
  const temp = `${file}.${process.pid}.tmp`;
  try {
    const fd = openSync(temp, 'wx', 0o600);
    try {
      for (const part of [MAGIC, sha256(data), data]) writeSync(fd, part);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, file);
  } catch {
    rmSync(temp, { force: true });
    return;
  }
  const dir = dirname(file);
  const bundle = file.slice(dir.length + 1, dir.length + 17);
  try {
    for (const other of readdirSync(dir)) {
      const path = join(dir, other);
      if (!other.startsWith(bundle) && Date.now() - statSync(path).mtimeMs > STALE_MS)
        rmSync(path, { force: true });
    }
  } catch {
    // (raced with another call: its sweep does it)
  }
}

/** False when runCachedBundle will not run the bundle (OMP_EVAL_PERF_OFF=code-cache): the ES modules load. */
export function cachedBundleOn(): boolean {
  return !perfOff('code-cache');
}

export interface CachedBundleOptions {
  /** The cache's directory (default: `<tmp>/omp-eval-code-cache-<uid>`, or its private fallback). */
  dir?: string;
  /** Told the cache's state once the script is compiled (tests). */
  onCompiled?: (state: 'used' | 'rejected' | 'none') => void;
  /** Where the cache's writing is put off to (default: the process's exit). */
  atExit?: (write: () => void) => void;
  /** Given to the script's main after argv: what the launcher spawned first (modes/launchEarly.ts). */
  handOff?: unknown;
}

/**
 * Compiles the classic-script bundle `bundle` (a CommonJS module whose export is the CLI's main
 * function) with the code cache of `name` (the command) and runs it: the promise of its main, or
 * undefined when the bundle cannot be used here (no such file, OMP_EVAL_PERF_OFF=code-cache, or it
 * failed to compile): the caller then loads
 * the ES-module chunks. A cache that is missing or was rejected is written when the process exits.
 */
export function runCachedBundle(
  bundle: URL,
  name: string,
  argv: readonly string[],
  opts: CachedBundleOptions = {},
): Promise<unknown> | undefined {
  if (!cachedBundleOn()) return undefined;
  const filename = fileURLToPath(bundle);
  let source: string;
  try {
    source = readFileSync(filename, 'utf8');
  } catch {
    return undefined;
  }
  const digest = BUNDLE_TAG.exec(source)?.[1];
  let cacheFile: string | undefined;
  try {
    if (digest) cacheFile = join(opts.dir ?? privateDir(tmpdir(), CODE_CACHE), cacheFileName(digest, name));
  } catch {
    // (no private directory can be made: compiled without a cache)
  }
  const cachedData = cacheFile ? readCache(cacheFile) : undefined;
  let script: vm.Script;
  try {
    script = new vm.Script(
      `(function (exports, require, module, __filename, __dirname, __ompImport) {${source}\n})`,
      {
        filename,
        ...(cachedData ? { cachedData } : {}),
      },
    );
  } catch {
    return undefined;
  }
  const rejected = cachedData !== undefined && script.cachedDataRejected === true;
  opts.onCompiled?.(cachedData === undefined ? 'none' : rejected ? 'rejected' : 'used');
  if (cacheFile && (cachedData === undefined || rejected)) {
    const file = cacheFile;
    // (at the end, so that the functions the call ran are in it, compiled)
    const atExit = opts.atExit ?? ((write) => process.once('exit', write));
    atExit(() => {
      try {
        writeCache(file, script.createCachedData());
      } catch {
        // (the next call compiles again)
      }
    });
  }
  const module = { exports: {} as unknown };
  const wrapper = script.runInThisContext() as (...args: unknown[]) => void;
  // (the script's import()s, made calls of this by the build: a classic script has no loader of its
  // own without an experimental option of vm.Script; its relative specifiers are the bundle's)
  const importModule = (specifier: string) =>
    import(specifier.startsWith('.') ? new URL(specifier, bundle).href : specifier);
  wrapper.call(
    module.exports,
    module.exports,
    createRequire(filename),
    module,
    filename,
    dirname(filename),
    importModule,
  );
  return (module.exports as { main: (argv: readonly string[], handOff?: unknown) => Promise<unknown> }).main(
    argv,
    opts.handOff,
  );
}
