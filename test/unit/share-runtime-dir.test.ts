/** The share directory (src/modes/share/runtimeDir.ts): where it is, and what is refused. */
import { chmodSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  currentUid,
  openShareDir,
  privateDirProblem,
  readSecret,
  ShareDirError,
  sameSecret,
  shareDirPath,
  shareSecret,
} from '../../src/modes/share/runtimeDir.js';

const base = () => mkdtempSync(join(tmpdir(), 'omp-share-'));
const uid = currentUid();

describe('the share directory', () => {
  it('is in $XDG_RUNTIME_DIR when that is the user’s, else in the temp folder', () => {
    const runtime = base();
    expect(shareDirPath({ XDG_RUNTIME_DIR: runtime }, uid)).toBe(join(runtime, 'omp-eval'));
    // (a runtime dir of another user, a relative one, a missing one: the temp folder)
    expect(shareDirPath({ XDG_RUNTIME_DIR: runtime, TMPDIR: '/t' }, uid + 1)).toBe(`/t/omp-eval-${uid + 1}`);
    expect(shareDirPath({ XDG_RUNTIME_DIR: 'rel', TMPDIR: '/t' }, uid)).toBe(`/t/omp-eval-${uid}`);
    expect(shareDirPath({ XDG_RUNTIME_DIR: join(runtime, 'gone'), TMPDIR: '/t' }, uid)).toBe(
      `/t/omp-eval-${uid}`,
    );
  });

  it('is made 0700 and accepted', () => {
    const dir = join(base(), 'omp-eval');
    expect(privateDirProblem(dir, uid)).toBe('missing');
    expect(openShareDir(dir, uid)).toBe(dir);
    expect(privateDirProblem(dir, uid)).toBeUndefined();
  });

  it('is refused with a wrong mode, a wrong owner, as a symbolic link or a file', () => {
    const open = base();
    const loose = join(open, 'loose');
    mkdirSync(loose);
    chmodSync(loose, 0o755);
    expect(() => openShareDir(loose, uid)).toThrow(ShareDirError);
    expect(() => openShareDir(loose, uid)).toThrow(/has mode 0755, not 0700/);
    const mine = join(open, 'mine');
    mkdirSync(mine, { mode: 0o700 });
    // (owned by this user: for another uid it belongs to someone else)
    expect(() => openShareDir(mine, uid + 1)).toThrow(`belongs to uid ${uid}, not to you (uid ${uid + 1})`);
    const link = join(open, 'link');
    symlinkSync(mine, link);
    expect(() => openShareDir(link, uid)).toThrow(/symbolic link/);
    const file = join(open, 'file');
    writeFileSync(file, '');
    expect(() => openShareDir(file, uid)).toThrow(/not a directory/);
  });

  it('keeps one secret, 0600, and refuses one anybody else can read', () => {
    const dir = openShareDir(join(base(), 'omp-eval'), uid);
    const secret = shareSecret(dir, uid);
    expect(secret).toMatch(/^[0-9a-f]{64}$/);
    expect(shareSecret(dir, uid)).toBe(secret);
    expect(readSecret(dir, uid)).toBe(secret);
    expect(() => readSecret(dir, uid + 1)).toThrow(/belongs to uid/);
    chmodSync(join(dir, 'secret'), 0o644);
    expect(() => readSecret(dir, uid)).toThrow(/not 0600/);
    expect(() => readSecret(join(base(), 'none'), uid)).toThrow(ShareDirError);
  });

  it('compares secrets whole', () => {
    expect(sameSecret('abc', 'abc')).toBe(true);
    expect(sameSecret('abd', 'abc')).toBe(false);
    expect(sameSecret('ab', 'abc')).toBe(false);
    expect(sameSecret(undefined, 'abc')).toBe(false);
  });
});
