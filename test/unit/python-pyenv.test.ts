import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { pyenvTarget } from '../../src/eval/launch/pyenv.js';

const describeUnix = process.platform === 'win32' ? describe.skip : describe;

/** An executable file (its content is never run). */
function exe(path: string, text = '#!/bin/sh\nexit 0\n'): void {
  writeFileSync(path, text);
  chmodSync(path, 0o755);
}

describeUnix('pyenvTarget: a pyenv shim seen through without running it', () => {
  let root: string;
  let work: string;
  let shim: string;
  let env: NodeJS.ProcessEnv;
  const real = (v: string, cmd = 'python3') => join(root, 'versions', v, 'bin', cmd);

  beforeEach(() => {
    const dir = mkdtempSync(join(tmpdir(), 'omp-pyenv-'));
    root = join(dir, 'pyenv');
    work = join(dir, 'work', 'project', 'sub');
    mkdirSync(work, { recursive: true });
    mkdirSync(join(root, 'shims'), { recursive: true });
    shim = join(root, 'shims', 'python3');
    // A shim that would say so if it were run.
    exe(shim, '#!/bin/sh\necho shim-was-run >&2\nexit 99\n');
    for (const v of ['3.11.7', '3.12.1']) {
      mkdirSync(join(root, 'versions', v, 'bin'), { recursive: true });
      exe(real(v));
    }
    mkdirSync(join(root, 'versions', '2.7.18', 'bin'), { recursive: true });
    exe(real('2.7.18', 'python'));
    writeFileSync(join(root, 'version'), '3.11.7\n');
    env = { PYENV_ROOT: root, PATH: `${join(root, 'shims')}:/usr/bin` };
  });

  it('the global version file, when nothing nearer names one', () => {
    expect(pyenvTarget(shim, env, work)).toEqual({
      executable: real('3.11.7'),
      version: '3.11.7',
      origin: join(root, 'version'),
    });
  });

  it('the nearest .python-version from the working directory upwards', () => {
    writeFileSync(join(work, '..', '..', '.python-version'), '3.11.7\n');
    writeFileSync(join(work, '..', '.python-version'), '# a comment\n\n  3.12.1  extra words\n');
    expect(pyenvTarget(shim, env, work)).toMatchObject({
      executable: real('3.12.1'),
      origin: join(work, '..', '.python-version'),
    });
  });

  it('PYENV_VERSION before any file; of several, the first that has the command', () => {
    writeFileSync(join(work, '.python-version'), '3.11.7\n');
    expect(pyenvTarget(shim, { ...env, PYENV_VERSION: '3.12.1' }, work)).toMatchObject({
      executable: real('3.12.1'),
      origin: 'PYENV_VERSION',
    });
    // python3 is not in 2.7.18: the next one is.
    expect(pyenvTarget(shim, { ...env, PYENV_VERSION: '2.7.18:3.12.1' }, work)?.executable).toBe(
      real('3.12.1'),
    );
    // `python` is.
    const shimPython = join(root, 'shims', 'python');
    exe(shimPython);
    expect(pyenvTarget(shimPython, { ...env, PYENV_VERSION: '2.7.18:3.12.1' }, work)?.executable).toBe(
      real('2.7.18', 'python'),
    );
  });

  it('a shim reached through a link on PATH, and PYENV_ROOT defaulting to ~/.pyenv', () => {
    const bin = join(root, '..', 'bin');
    mkdirSync(bin);
    symlinkSync(shim, join(bin, 'python3'));
    expect(pyenvTarget(join(bin, 'python3'), env, work)?.executable).toBe(real('3.11.7'));
    // A link of another name runs another command: not plain.
    symlinkSync(shim, join(bin, 'python'));
    expect(pyenvTarget(join(bin, 'python'), env, work)).toBeUndefined();
    // ~/.pyenv when PYENV_ROOT is unset
    const home = join(root, '..', 'home');
    mkdirSync(home);
    symlinkSync(root, join(home, '.pyenv'));
    const viaHome = join(home, '.pyenv', 'shims', 'python3');
    expect(pyenvTarget(viaHome, { PATH: env.PATH }, work, home)?.executable).toBe(
      join(home, '.pyenv', 'versions', '3.11.7', 'bin', 'python3'),
    );
    expect(pyenvTarget(viaHome, { PATH: env.PATH, HOME: home }, work)?.version).toBe('3.11.7');
  });

  it('a virtualenv alias (a link in versions/) is followed', () => {
    const envDir = join(root, 'versions', '3.12.1', 'envs', 'proj');
    mkdirSync(join(envDir, 'bin'), { recursive: true });
    exe(join(envDir, 'bin', 'python3'));
    symlinkSync(envDir, join(root, 'versions', 'proj'));
    writeFileSync(join(work, '.python-version'), 'proj\n');
    // (the path through the alias, not its real path: a venv's python is found by where it is)
    expect(pyenvTarget(shim, env, work)?.executable).toBe(join(root, 'versions', 'proj', 'bin', 'python3'));
  });

  it('anything unusual leaves the shim as it is', () => {
    const none = (e: NodeJS.ProcessEnv = env, cwd = work) =>
      expect(pyenvTarget(shim, e, cwd)).toBeUndefined();
    none({ ...env, PYENV_VERSION: 'system' });
    none({ ...env, PYENV_VERSION: '3.11' }); // a prefix pyenv would resolve (pyenv latest)
    none({ ...env, PYENV_VERSION: '3.13.0' }); // not installed
    none({ ...env, PYENV_VERSION: '2.7.18' }); // no python3 there: pyenv's own error
    none({ ...env, PYENV_DIR: work });
    writeFileSync(join(work, '.python-version'), '\n# nothing\n'); // pyenv's `system`
    none();
    writeFileSync(join(work, '.python-version'), 'system\n');
    none();
    // A file that is not a regular file (a directory, a FIFO) is not read.
    const other = join(work, '..', 'other');
    mkdirSync(join(other, '.python-version'), { recursive: true });
    none(env, other);
    const fifo = join(work, '..', 'fifo');
    mkdirSync(fifo);
    execFileSync('mkfifo', [join(fifo, '.python-version')]);
    none(env, fifo); // (and does not wait for a writer)
    // A PATH entry that is no shim, or a shim of another root.
    expect(pyenvTarget(real('3.11.7'), env, work)).toBeUndefined();
    expect(pyenvTarget(shim, { ...env, PYENV_ROOT: join(root, '..', 'elsewhere') }, work)).toBeUndefined();
    expect(pyenvTarget('python3', env, work)).toBeUndefined();
  });

  it('a version file in the workspace only selects among versions/: no `/`, no `..`', () => {
    // An interpreter an attacker wrote, reachable by a relative path from versions/.
    const evil = join(work, 'evil');
    mkdirSync(join(evil, 'bin'), { recursive: true });
    exe(join(evil, 'bin', 'python3'));
    for (const name of [
      '../../work/project/sub/evil',
      '..',
      '../3.11.7',
      `${evil}`,
      '3.11.7/../../../work/project/sub/evil',
      '.',
    ]) {
      writeFileSync(join(work, '.python-version'), `${name}\n`);
      expect(pyenvTarget(shim, env, work), name).toBeUndefined();
      expect(pyenvTarget(shim, { ...env, PYENV_VERSION: name }, work), name).toBeUndefined();
    }
  });
});
