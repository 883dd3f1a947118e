/**
 * Issue 14 item 18: the runner cache's fallback is reused from run to run (each run a process of
 * its own), and what the cache no longer needs is removed.
 */
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ensureRunnerFile, runnerCacheDir } from '../../src/eval/kernel/runnerFile.js';

const uid = process.getuid?.() ?? 0;
const DIST = fileURLToPath(new URL('../../dist/src/eval/kernel/runnerFile.js', import.meta.url));
const DAY = 24 * 60 * 60;

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

  it('removes what it no longer needs: the per-run fallbacks of earlier versions, old kernel files', () => {
    const base = mkdtempSync(join(tmpdir(), 'omp-runner-clean-'));
    chmodSync(base, 0o700);
    const now = Date.now() / 1000;
    const legacy = join(base, 'omp-python-runner-Ab12Cd');
    const fresh = join(base, 'omp-python-runner-Ef34Gh');
    for (const [dir, age] of [
      [legacy, 2 * DAY],
      [fresh, 60],
    ] as const) {
      mkdirSync(dir, { mode: 0o700 });
      utimesSync(dir, now - age, now - age);
    }
    const cache = runnerCacheDir(base);
    expect(existsSync(legacy)).toBe(false);
    expect(existsSync(fresh)).toBe(true); // maybe still in use by a kernel of an earlier version
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
});
