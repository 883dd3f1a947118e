/**
 * The code cache of `run` and `tool`'s classic script (src/eval/launch/codeCache.ts): the script
 * runs the same with a cache, without one, with a garbage, altered, foreign or rejected one, and
 * with a directory it cannot write; a cache is never read across bundles, Node versions or flags.
 */
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  cachedBundleOn,
  cacheFileName,
  readCache,
  runCachedBundle,
  writeCache,
} from '../../src/eval/launch/codeCache.js';

afterEach(() => vi.unstubAllEnvs());

/** A bundle as the build writes one: its digest first, then a module whose `main` runs the CLI. */
function bundleIn(dir: string, body: string): URL {
  const code = `${body}\n`;
  const file = join(dir, 'fast.cjs');
  const digest = createHash('sha256').update(code).digest('hex');
  writeFileSync(file, `//omp-eval-bundle ${digest}\n${code}`);
  return pathToFileURL(file);
}

const BODY = [
  'function square(n) { return n * n; }',
  'exports.main = async (argv) => ({',
  '  argv,',
  '  squares: argv.map(Number).map(square),',
  "  os: typeof (await __ompImport('node:os')).cpus,",
  "  sibling: (await __ompImport('./sibling.mjs')).value,",
  '  file: __filename,',
  '});',
].join('\n');

function setUp() {
  const root = mkdtempSync(join(tmpdir(), 'omp-code-cache-'));
  const cache = join(root, 'cache');
  mkdirSync(cache, { mode: 0o700 });
  writeFileSync(join(root, 'sibling.mjs'), 'export const value = 42;\n');
  return { root, cache, bundle: bundleIn(root, BODY) };
}

/** One call: its result, the cache's state, and the writing put off to its end (run here). */
async function call(bundle: URL, dir: string, argv = ['3', '4']) {
  let state: string | undefined;
  const writes: (() => void)[] = [];
  const result = await runCachedBundle(bundle, 'tool', argv, {
    dir,
    onCompiled: (s) => {
      state = s;
    },
    atExit: (write) => writes.push(write),
  });
  for (const write of writes) write();
  return { result, state, wrote: writes.length > 0 };
}

const cacheFiles = (dir: string) => readdirSync(dir).filter((name) => name.endsWith('.bin'));
const expected = (root: string) => ({
  argv: ['3', '4'],
  squares: [9, 16],
  os: 'function',
  sibling: 42,
  file: join(root, 'fast.cjs'),
});

describe("the classic script's code cache", () => {
  it('is written after a first call, used by the next, with the same result', async () => {
    const { root, cache, bundle } = setUp();
    const first = await call(bundle, cache);
    expect(first).toEqual({ result: expected(root), state: 'none', wrote: true });
    const [file] = cacheFiles(cache);
    expect(file).toBeDefined();
    expect(readFileSync(join(cache, file as string)).length).toBeGreaterThan(100);
    const second = await call(bundle, cache);
    expect(second).toEqual({ result: expected(root), state: 'used', wrote: false });
  });

  it('a garbage file, an altered one and one of another owner or mode are not read', async () => {
    const { root, cache, bundle } = setUp();
    await call(bundle, cache);
    const file = join(cache, cacheFiles(cache)[0] as string);
    const good = readFileSync(file);

    writeFileSync(file, 'garbage');
    expect(await call(bundle, cache)).toEqual({ result: expected(root), state: 'none', wrote: true });
    expect(readFileSync(file)).toHaveLength(good.length); // (written anew)

    const altered = Buffer.from(good);
    altered[altered.length - 10] = (altered[altered.length - 10] as number) ^ 0xff;
    writeFileSync(file, altered);
    expect(readCache(file)).toBeUndefined();
    expect(await call(bundle, cache)).toEqual({ result: expected(root), state: 'none', wrote: true });

    chmodSync(file, 0o666); // (others may write it: not ours alone)
    expect(readCache(file)).toBeUndefined();
  });

  it('V8 data of another script is rejected by V8 and written anew', async () => {
    const { root, cache } = setUp();
    // (a script this process never compiled: V8 would take a compiled one from memory, unasked)
    const bundle = bundleIn(root, `${BODY}\n// ${Math.random()}`);
    const other = bundleIn(
      mkdtempSync(join(tmpdir(), 'omp-code-cache-other-')),
      'exports.main = async () => 1;',
    );
    const otherCache = join(root, 'other-cache');
    mkdirSync(otherCache, { mode: 0o700 });
    await call(other, otherCache);
    const foreign = readCache(join(otherCache, cacheFiles(otherCache)[0] as string)) as Buffer;
    const digest = /^\/\/omp-eval-bundle (\w+)/.exec(readFileSync(bundle, 'utf8'))?.[1] as string;
    // (well formed, with its digest: only V8 can tell it is another script's)
    const file = join(cache, cacheFileName(digest, 'tool'));
    writeCache(file, foreign);
    expect(await call(bundle, cache)).toEqual({ result: expected(root), state: 'rejected', wrote: true });
    expect(readCache(file)?.equals(foreign)).toBe(false);
  });

  it('a directory it cannot write, or none at all: the script runs, nothing is written', async () => {
    const { root, cache, bundle } = setUp();
    chmodSync(cache, 0o500);
    try {
      if (process.getuid?.() === 0) {
        // (root writes anyway: a directory that is a file stands in for it)
        const notDir = join(root, 'not-a-dir');
        writeFileSync(notDir, '');
        expect(await call(bundle, notDir)).toEqual({ result: expected(root), state: 'none', wrote: true });
      }
      expect(await call(bundle, cache)).toMatchObject({ result: expected(root), state: 'none' });
      if (process.getuid?.() !== 0) expect(cacheFiles(cache)).toEqual([]);
    } finally {
      chmodSync(cache, 0o700);
    }
  });

  it('is named for the bundle, the command, the Node version, the architecture and the flags', () => {
    const base = { version: 'v20.20.2', arch: 'x64', execArgv: [], env: {} };
    const name = cacheFileName('a'.repeat(64), 'tool', base);
    const others = [
      cacheFileName('b'.repeat(64), 'tool', base),
      cacheFileName('a'.repeat(64), 'run', base),
      cacheFileName('a'.repeat(64), 'tool', { ...base, version: 'v22.23.3' }),
      cacheFileName('a'.repeat(64), 'tool', { ...base, arch: 'arm64' }),
      cacheFileName('a'.repeat(64), 'tool', { ...base, execArgv: ['--jitless'] }),
      cacheFileName('a'.repeat(64), 'tool', { ...base, env: { NODE_OPTIONS: '--max-old-space-size=100' } }),
    ];
    expect(new Set([name, ...others]).size).toBe(others.length + 1);
  });

  it('OMP_EVAL_PERF_OFF=code-cache: not used (the caller loads the ES modules)', async () => {
    const { cache, bundle } = setUp();
    expect(cachedBundleOn()).toBe(true);
    vi.stubEnv('OMP_EVAL_PERF_OFF', 'code-cache');
    // (the launcher then spawns nothing itself: the ES modules' start does, bin/omp-eval.js)
    expect(cachedBundleOn()).toBe(false);
    expect(runCachedBundle(bundle, 'tool', [], { dir: cache })).toBeUndefined();
    expect(cacheFiles(cache)).toEqual([]);
  });

  it('no bundle, or one that does not compile: not used', () => {
    const { root, cache } = setUp();
    expect(
      runCachedBundle(pathToFileURL(join(root, 'none.cjs')), 'tool', [], { dir: cache }),
    ).toBeUndefined();
    expect(runCachedBundle(bundleIn(root, 'exports.main = ('), 'tool', [], { dir: cache })).toBeUndefined();
  });
});
