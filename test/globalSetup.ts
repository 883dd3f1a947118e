/**
 * One temp folder per test run, removed when the run ends. Tests, their kernels and the CLIs they
 * start write to the temp folder (artifacts of 100 MB and more, spill files, scratch folders); left
 * behind, one run's half gigabyte piled up over CI's three runs until the disk was full.
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Set to the folder while a run has one: `npm test` makes it for all its parts, vitest otherwise. */
export const RUN_TMP = 'OMP_EVAL_TEST_TMP';

/** A folder like /tmp (other users' tests write to it), with a short name (Unix socket paths). */
function makeRunTmp(): string {
  const dir = mkdtempSync(join(tmpdir(), 'omp-test-'));
  chmodSync(dir, 0o1777);
  return dir;
}

export default function setup(): () => void {
  // Each vitest project runs the global setup: the first makes the folder, the others find it.
  if (process.env[RUN_TMP]) return () => {};
  const dir = makeRunTmp();
  const before = process.env.TMPDIR;
  // Set before vitest starts its workers, which inherit it, as every process they start does.
  process.env.TMPDIR = dir;
  process.env[RUN_TMP] = dir;
  return () => {
    delete process.env[RUN_TMP];
    if (before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = before;
    rmSync(dir, { recursive: true, force: true });
  };
}
