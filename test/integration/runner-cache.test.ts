/**
 * Issue 14 item 18: the runner cache's fallback is reused from run to run (each run a process of
 * its own), and what the cache no longer needs is removed. Item 16: the kernel's bytecode there is
 * checked like its source.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ensureRunnerFile, runnerCacheDir } from '../../src/eval/launch/runnerFile.js';
import { cli } from '../helpers/cli.js';
import { startKernel } from '../helpers/kernel.js';

const uid = process.getuid?.() ?? 0;
const DIST = fileURLToPath(new URL('../../dist/src/eval/launch/runnerFile.js', import.meta.url));
const DAY = 24 * 60 * 60;
/** A manifest of the bytecode of one interpreter. */
const MANIFEST = /^bytecode-[0-9a-f]{16}\.json$/;

/** The runner cache another process (another run) would use under `base`. */
const cacheOfARun = (base: string) =>
  execFileSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `import(${JSON.stringify(DIST)}).then((m) => process.stdout.write(m.runnerCacheDir(${JSON.stringify(base)})))`,
    ],
    { encoding: 'utf8' },
  );

describe('the runner cache fallback', () => {
  it('is the same private directory on every run when the preferred name is not usable', () => {
    const base = mkdtempSync(join(tmpdir(), 'omp-runner-base-'));
    // The preferred name is taken by something that is not a private directory of ours.
    writeFileSync(join(base, `omp-python-runner-${uid}`), 'not a directory');
    const first = cacheOfARun(base);
    const second = cacheOfARun(base);
    expect(first.startsWith(join(base, `omp-python-runner-${uid}-`))).toBe(true);
    expect(second).toBe(first);
    expect(readdirSync(base).filter((n) => n.startsWith('omp-python-runner-'))).toHaveLength(2);
  });

  it('removes what it no longer needs: old kernel files', () => {
    const base = mkdtempSync(join(tmpdir(), 'omp-runner-clean-'));
    chmodSync(base, 0o700);
    const now = Date.now() / 1000;
    const cache = runnerCacheDir(base);
    const stale = join(cache, '0123456789abcdef');
    const recent = join(cache, 'fedcba9876543210');
    for (const [dir, age] of [
      [stale, 8 * DAY],
      [recent, DAY],
    ] as const) {
      mkdirSync(dir, { mode: 0o700 });
      utimesSync(dir, now - age, now - age);
    }
    const runner = ensureRunnerFile({ base: cache });
    expect(existsSync(runner)).toBe(true);
    expect(existsSync(stale)).toBe(false);
    expect(existsSync(recent)).toBe(true);
  });

  it('sweeps at most hourly: a start reads no whole directory the sweep read within the hour', () => {
    const cache = mkdtempSync(join(tmpdir(), 'omp-runner-sweep-'));
    chmodSync(cache, 0o700);
    ensureRunnerFile({ base: cache }); // the first start sweeps
    const now = Date.now() / 1000;
    const stale = join(cache, '0123456789abcdef');
    mkdirSync(stale, { mode: 0o700 });
    utimesSync(stale, now - 8 * DAY, now - 8 * DAY);
    ensureRunnerFile({ base: cache });
    expect(existsSync(stale)).toBe(true); // swept moments ago: not again
    const marker = join(cache, '.swept-versions');
    utimesSync(marker, now - 2 * 3600, now - 2 * 3600);
    ensureRunnerFile({ base: cache });
    expect(existsSync(stale)).toBe(false);
  });
});

/** Keeps a pyc's 16-byte header (so Python takes it as bound to the source) and changes its code. */
const TAMPER = `
import marshal, sys
path, source, marker = sys.argv[1:4]
with open(path, "rb") as f:
    header = f.read(16)
with open(source) as f:
    code = compile(f.read() + "\\nopen(%r, 'w').close()\\n" % marker, source, "exec")
with open(path, "wb") as f:
    f.write(header + marshal.dumps(code))
`;

/** Changes the last byte of a file in place and sets its times back, to the nanosecond. */
const FLIP_LAST_BYTE = `
import os, sys
path = sys.argv[1]
st = os.stat(path)
with open(path, "r+b") as f:
    f.seek(-1, 2)
    last = f.read(1)[0]
    f.seek(-1, 2)
    f.write(bytes([last ^ 1]))
os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
`;

describe('the kernel bytecode in the runner cache', () => {
  it('is written by the host; a tampered pyc with its header kept is removed before a kernel starts, never run', async () => {
    const base = mkdtempSync(join(tmpdir(), 'omp-bytecode-'));
    chmodSync(base, 0o700);
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = base; // the kernels below use a cache of their own
    try {
      const warnings: string[] = [];
      const logger = { trace: () => {}, warn: (m: string) => warnings.push(m) };
      const first = await startKernel({ logger });
      expect((await first.execute('x = 1')).status).toBe('ok');
      await first.shutdown();
      const entry = dirname(ensureRunnerFile());
      expect(entry.startsWith(base)).toBe(true);
      const cache = join(entry, 'omp_kernel', '__pycache__');
      const name = readdirSync(cache).find((n) => n.startsWith('server.')) as string;
      expect(readdirSync(entry).filter((n) => MANIFEST.test(n))).toHaveLength(1);
      const pyc = join(cache, name);
      // A start that finds every pyc recorded notes their identities: later starts hash only
      // those whose identity changed.
      const checked = await startKernel({ logger });
      await checked.shutdown();
      expect(JSON.parse(readFileSync(join(entry, 'bytecode-checked.json'), 'utf8'))).toHaveProperty(
        join('omp_kernel', '__pycache__', name),
      );
      const marker = join(base, 'tampered-code-ran');
      execFileSync('python3', ['-c', TAMPER, pyc, join(entry, 'omp_kernel', 'server.py'), marker]);
      // Another one changed in place, its size and times kept: its change time is new all the same.
      const other = join(cache, readdirSync(cache).find((n) => n.startsWith('api.')) as string);
      execFileSync('python3', ['-c', FLIP_LAST_BYTE, other]);
      const tampered = readFileSync(pyc);
      // The record of an interpreter that is gone (a removed venv) is dropped at the next start.
      const gone = join(entry, 'bytecode-0123456789abcdef.json');
      writeFileSync(
        gone,
        JSON.stringify({ executable: join(base, 'removed-venv/bin/python'), tag: 'x', files: {} }),
        {
          mode: 0o600,
        },
      );

      const second = await startKernel({ logger });
      expect((await second.execute('x = 1')).status).toBe('ok');
      expect(existsSync(marker)).toBe(false);
      expect(existsSync(gone)).toBe(false);
      expect(warnings.filter((w) => w.includes(pyc))).toEqual([
        `${pyc} is not bytecode omp-eval wrote (changed, or another's); removed`,
      ]);
      expect(warnings.filter((w) => w.includes(other))).toEqual([
        `${other} is not bytecode omp-eval wrote (changed, or another's); removed`,
      ]);
      // Compiled again for the next start: the host's own bytes.
      expect(existsSync(pyc)).toBe(true);
      expect(readFileSync(pyc).equals(tampered)).toBe(false);
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
    }
  });

  it('is compiled by one process when several start at once on a new cache entry: none removes what another wrote', async () => {
    const base = mkdtempSync(join(tmpdir(), 'omp-bytecode-race-'));
    chmodSync(base, 0o700);
    const env = { TMPDIR: base };
    // Without the compile lock each of them compiles; marshal's bytes differ from run to run, the
    // last manifest wins, and a check removes the others' pycs with a warning for each.
    const runs = await Promise.all(
      Array.from({ length: 6 }, (_, i) => cli(['run', '-'], { input: `print(${i})\n`, env })),
    );
    runs.forEach((run, i) => {
      expect(run.stderr).toBe('');
      expect(run.stdout).toBe(`${i}\n`);
      expect(run.code).toBe(0);
    });
    const entry = join(base, `omp-python-runner-${uid}`);
    const [hash] = readdirSync(entry).filter((n) => /^[0-9a-f]{16}$/.test(n));
    const dir = join(entry, hash as string);
    const manifests = readdirSync(dir).filter((n) => MANIFEST.test(n));
    expect(manifests).toHaveLength(1);
    expect(readdirSync(dir).filter((n) => n.endsWith('.lock'))).toEqual([]);
    const { files } = JSON.parse(readFileSync(join(dir, manifests[0] as string), 'utf8')) as {
      files: Record<string, string>;
    };
    expect(Object.keys(files).length).toBeGreaterThan(5);
    for (const [rel, sha] of Object.entries(files))
      expect(
        createHash('sha256')
          .update(readFileSync(join(dir, rel)))
          .digest('hex'),
      ).toBe(sha);
    // The next start finds nothing to remove.
    const next = await cli(['run', '-'], { input: 'print("again")\n', env });
    expect(next.stderr).toBe('');
    expect(next.stdout).toBe('again\n');
  });

  it('takes over a compile lock whose process is gone', async () => {
    const base = mkdtempSync(join(tmpdir(), 'omp-bytecode-lock-'));
    chmodSync(base, 0o700);
    const env = { TMPDIR: base };
    expect((await cli(['run', '-'], { input: 'print(1)\n', env })).code).toBe(0);
    const entry = join(base, `omp-python-runner-${uid}`);
    const [hash] = readdirSync(entry).filter((n) => /^[0-9a-f]{16}$/.test(n));
    const dir = join(entry, hash as string);
    const [manifest] = readdirSync(dir).filter((n) => MANIFEST.test(n));
    const manifestPath = join(dir, manifest as string);
    // A pyc gone from the cache: the next start compiles again, if it gets the lock.
    const pyc = Object.keys(JSON.parse(readFileSync(manifestPath, 'utf8')).files)[0] as string;
    rmSync(join(dir, pyc));
    // A pid that is no process: the one of a child that has exited.
    const dead = spawnSync('true').pid;
    writeFileSync(`${manifestPath}.lock`, String(dead), { mode: 0o600 });
    const run = await cli(['run', '-'], { input: 'print(2)\n', env });
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe('2\n');
    expect(existsSync(join(dir, pyc))).toBe(true);
    expect(existsSync(`${manifestPath}.lock`)).toBe(false);
  });
});

describe("the kernel's files in the cache", () => {
  it('are read again only when changed since the last check: an edit that keeps their size and times is found, and replaced', () => {
    const base = mkdtempSync(join(tmpdir(), 'omp-runner-files-'));
    chmodSync(base, 0o700);
    const sources = { 'runner.py': 'print(1)\n', 'omp_kernel/__init__.py': 'X = 1\n' };
    const warnings: string[] = [];
    const logger = { trace: () => {}, warn: (text: string) => warnings.push(text) };
    const dir = dirname(ensureRunnerFile({ base, sources, logger }));
    const record = () =>
      JSON.parse(readFileSync(join(dir, 'files-checked.json'), 'utf8')) as Record<string, string>;
    expect(Object.keys(record()).sort()).toEqual(Object.keys(sources).sort());
    ensureRunnerFile({ base, sources, logger });
    expect(warnings).toEqual([]);
    // The same size and modification time: only the change time (which no process can set back)
    // tells. (Timestamps are coarse: the edit waits until a new file's is later than the check's.)
    const init = join(dir, 'omp_kernel', '__init__.py');
    const before = statSync(init, { bigint: true });
    const probe = join(base, 'probe');
    do writeFileSync(probe, '');
    while (statSync(probe, { bigint: true }).ctimeNs <= before.ctimeNs);
    writeFileSync(init, 'X = 2\n');
    utimesSync(init, before.atime, before.mtime);
    ensureRunnerFile({ base, sources, logger });
    expect(readFileSync(init, 'utf8')).toBe('X = 1\n');
    expect(warnings.join('\n')).toMatch(/__init__\.py was not the expected file/);
    expect(record()['omp_kernel/__init__.py']).not.toBe(undefined);
  });
});
