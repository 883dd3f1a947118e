import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { PythonNotFoundError, pythonCandidates, resolvePython, which } from '../../src/eval/launch/python.js';
import { run, startKernel } from '../helpers/kernel.js';

let realPython: string;

beforeAll(() => {
  const found = which('python3', process.env.PATH);
  if (!found) throw new Error('python3 must be on PATH for these tests');
  // The interpreter itself, not a version-manager shim that needs the host's PATH.
  realPython = execFileSync(found, ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' }).trim();
});

/** A directory that looks like a venv: bin/python → the real interpreter. */
function fakeVenv(root: string): string {
  mkdirSync(join(root, 'bin'), { recursive: true });
  symlinkSync(realPython, join(root, 'bin', 'python'));
  return join(root, 'bin', 'python');
}

function script(path: string, body: string) {
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
}

describe('interpreter resolution', () => {
  it('lists candidates in the spec order', () => {
    const names = pythonCandidates({
      env: { VIRTUAL_ENV: '/v', CONDA_PREFIX: '/c', PATH: '' },
      cwd: '/w',
      home: '/h',
    }).map((c) => `${c.source}=${c.path}`);
    expect(names).toEqual([
      'VIRTUAL_ENV=/v/bin/python',
      'CONDA_PREFIX=/c/bin/python',
      '.venv in the working directory=/w/.venv/bin/python',
      'venv in the working directory=/w/venv/bin/python',
      'managed venv ~/.omp/python-env=/h/.omp/python-env/bin/python',
      'PATH (python)=python',
      'PATH (python3)=python3',
    ]);
  });

  it('prefers VIRTUAL_ENV, then a .venv in the working directory', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'omp-res-'));
    const active = fakeVenv(join(dir, 'active'));
    fakeVenv(join(dir, 'work', '.venv'));
    const env = { PATH: process.env.PATH, VIRTUAL_ENV: join(dir, 'active') };
    const viaEnv = await resolvePython({ cwd: join(dir, 'work'), env, home: dir });
    expect(viaEnv).toMatchObject({ source: 'VIRTUAL_ENV', path: active, binDir: join(dir, 'active', 'bin') });
    const viaDotVenv = await resolvePython({
      cwd: join(dir, 'work'),
      env: { PATH: process.env.PATH },
      home: dir,
    });
    expect(viaDotVenv.source).toBe('.venv in the working directory');
  });

  it('uses the managed venv, then PATH', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'omp-res-'));
    fakeVenv(join(dir, '.omp', 'python-env'));
    const managed = await resolvePython({ cwd: dir, env: { PATH: process.env.PATH }, home: dir });
    expect(managed.source).toBe('managed venv ~/.omp/python-env');
    const bin = join(dir, 'pathbin');
    mkdirSync(bin);
    symlinkSync(realPython, join(bin, 'python3'));
    const onPath = await resolvePython({ cwd: bin, env: { PATH: bin }, home: bin });
    expect(onPath).toMatchObject({ source: 'PATH (python3)', path: join(bin, 'python3') });
    expect(onPath.binDir).toBeUndefined();
  });

  it('skips a broken or too old candidate and records why', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'omp-res-'));
    mkdirSync(join(dir, 'broken', 'bin'), { recursive: true });
    script(join(dir, 'broken', 'bin', 'python'), 'echo "libpython missing" >&2; exit 127');
    mkdirSync(join(dir, 'old', 'bin'), { recursive: true });
    script(join(dir, 'old', 'bin', 'python'), 'echo /old/python; echo 3.7.9');
    fakeVenv(join(dir, 'work', 'venv'));
    const resolved = await resolvePython({
      cwd: join(dir, 'work'),
      env: { PATH: process.env.PATH, VIRTUAL_ENV: join(dir, 'broken'), CONDA_PREFIX: join(dir, 'old') },
      home: dir,
    });
    expect(resolved.source).toBe('venv in the working directory');
    const err = await resolvePython({
      cwd: dir,
      env: { PATH: dir, VIRTUAL_ENV: join(dir, 'broken'), CONDA_PREFIX: join(dir, 'old') },
      home: dir,
    }).catch((e) => e);
    expect(err).toBeInstanceOf(PythonNotFoundError);
    expect(err.message).toContain('libpython missing');
    expect(err.message).toContain('Python 3.7.9 is older than 3.8');
    expect(err.message).toContain('.venv in the working directory');
  });

  it('an explicit interpreter skips discovery', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'omp-res-'));
    fakeVenv(join(dir, '.venv'));
    const explicit = await resolvePython({
      interpreter: realPython,
      cwd: dir,
      env: { PATH: process.env.PATH },
    });
    expect(explicit).toMatchObject({ source: 'explicit interpreter', executable: realPython });
    const missing = await resolvePython({ interpreter: join(dir, 'nope'), cwd: dir }).catch((e) => e);
    expect(missing.message).toMatch(/cannot be used/);
    expect(missing.tried).toHaveLength(1);
  });

  it('runs the kernel with the venv bin first on PATH', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'omp-res-'));
    fakeVenv(join(dir, '.venv'));
    const k = await startKernel({ cwd: dir, hostEnv: { PATH: process.env.PATH, HOME: dir } });
    const { result } = await run(k, 'import os\nos.environ["PATH"].split(os.pathsep)[0]');
    expect(result?.['text/plain']).toBe(`'${join(dir, '.venv', 'bin')}'`);
  });

  it('sees through a pyenv shim to the interpreter it would run, without running the shim', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'omp-res-'));
    const root = join(dir, 'pyenv');
    mkdirSync(join(root, 'shims'), { recursive: true });
    script(join(root, 'shims', 'python3'), 'echo "the shim was run" >&2; exit 99');
    mkdirSync(join(root, 'versions', '3.99.0', 'bin'), { recursive: true });
    symlinkSync(realPython, join(root, 'versions', '3.99.0', 'bin', 'python3'));
    writeFileSync(join(root, 'version'), '3.99.0\n');
    const env = { PATH: join(root, 'shims'), PYENV_ROOT: root, OMP_EVAL_NO_PROBE_CACHE: '1' };
    const resolved = await resolvePython({ cwd: dir, env, home: dir });
    expect(resolved).toMatchObject({
      path: join(root, 'shims', 'python3'),
      executable: join(root, 'versions', '3.99.0', 'bin', 'python3'),
      source: `PATH (python3) through pyenv's shim: version 3.99.0 (set by ${join(root, 'version')})`,
    });
    // `system`: the shim is run as it is (and here it fails, saying so).
    writeFileSync(join(dir, '.python-version'), 'system\n');
    const err = await resolvePython({ cwd: dir, env, home: dir }).catch((e) => e);
    expect(err.message).toContain('the shim was run');
  });

  it.runIf(process.platform === 'linux')(
    "with this machine's pyenv, the interpreter is the real file under versions/ and a cell runs",
    async () => {
      const root = process.env.PYENV_ROOT || join(process.env.HOME ?? '/root', '.pyenv');
      const shim = which('python3', process.env.PATH);
      if (!shim?.startsWith(join(root, 'shims'))) return; // (no pyenv here: nothing to see through)
      const dir = mkdtempSync(join(tmpdir(), 'omp-res-'));
      const env = { ...process.env, PYENV_ROOT: root, OMP_EVAL_NO_PROBE_CACHE: '1' };
      const resolved = await resolvePython({ cwd: dir, env, home: dir });
      expect(resolved.executable.startsWith(join(root, 'versions'))).toBe(true);
      expect(resolved.source).toMatch(/^PATH \(python3?\) through pyenv's shim: version /);
      // What the shim itself says it runs, from the same directory.
      const said = execFileSync(resolved.path, ['-c', 'import sys; print(sys.executable)'], {
        cwd: dir,
        encoding: 'utf8',
      }).trim();
      expect(resolved.executable).toBe(said);
      const k = await startKernel({ cwd: dir, hostEnv: { ...env, HOME: dir } });
      const { result } = await run(k, 'import sys\nsys.executable');
      expect(result?.['text/plain']).toBe(`'${resolved.executable}'`);
    },
  );
});

describe('runner file cache', () => {
  it('writes the kernel files once per content, privately, and replaces a tampered copy', async () => {
    const { ensureRunnerFile, getKernelSources, kernelFilesHash } = await import(
      '../../src/eval/launch/runnerFile.js'
    );
    const logged: string[] = [];
    const logger = { trace: () => {}, warn: (m: string) => logged.push(m) };
    const base = mkdtempSync(join(tmpdir(), 'omp-cache-'));
    chmodSync(base, 0o700);
    const sources = getKernelSources();
    const runner = ensureRunnerFile({ sources, base, logger });
    const magics = join(dirname(runner), 'omp_kernel', 'magics', '__init__.py');
    expect(statSync(dirname(runner)).mode & 0o777).toBe(0o700);
    expect(statSync(runner).mode & 0o777).toBe(0o600);
    expect(ensureRunnerFile({ sources, base, logger })).toBe(runner);
    writeFileSync(runner, 'import os; os._exit(1)\n');
    rmSync(magics);
    // A decoy as the link's target: replacing the link must never write through it.
    const decoy = join(base, 'decoy.txt');
    writeFileSync(decoy, 'decoy\n');
    symlinkSync(decoy, magics);
    expect(ensureRunnerFile({ sources, base, logger })).toBe(runner);
    expect(readFileSync(runner, 'utf8')).toBe(sources['runner.py']);
    expect(lstatSync(magics).isSymbolicLink()).toBe(false);
    expect(readFileSync(decoy, 'utf8')).toBe('decoy\n');
    expect(readFileSync(magics, 'utf8')).toBe(sources['omp_kernel/magics/__init__.py']);
    const other = ensureRunnerFile({ sources: { ...sources, 'runner.py': 'print(1)\n' }, base, logger });
    expect(dirname(other)).not.toBe(dirname(runner));
    expect(logged).toEqual([
      expect.stringMatching(/runner\.py was not the expected file .*; replaced/),
      expect.stringMatching(/magics\/__init__\.py was not the expected file .*; replaced/),
    ]);
    // The right content owned by someone else is not trusted either (CI runs as root, which can
    // give the file away; elsewhere the ownership check is covered by the code path above).
    if (process.getuid?.() === 0) {
      chownSync(join(dirname(runner), 'omp_kernel', 'server.py'), 65534, 65534);
      ensureRunnerFile({ sources, base, logger });
      expect(statSync(join(dirname(runner), 'omp_kernel', 'server.py')).uid).toBe(0);
      expect(logged.at(-1)).toMatch(/server\.py was not the expected file/);
    }
    // A cache directory that others can write to is not used at all.
    const shared = mkdtempSync(join(tmpdir(), 'omp-shared-'));
    chmodSync(shared, 0o777);
    const exposed = join(shared, kernelFilesHash(sources));
    mkdirSync(exposed, { mode: 0o777 });
    chmodSync(exposed, 0o777);
    const safe = ensureRunnerFile({ sources, base: shared, logger });
    expect(dirname(safe)).not.toBe(exposed);
    expect(logged.at(-1)).toMatch(/is not a private directory of this user; using /);
  });
});

describe('probe cache', () => {
  it('keeps a probe across runs only while nothing that picks the interpreter changed', async () => {
    const { cachedProbe, storeProbe } = await import('../../src/eval/launch/probeCache.js');
    const dir = mkdtempSync(join(tmpdir(), 'omp-probe-'));
    const shim = join(dir, 'python');
    const real = join(dir, 'python3.99');
    writeFileSync(shim, '#!/bin/sh\nexec true\n');
    writeFileSync(real, '');
    const env = { PATH: '/usr/bin', HOME: dir };
    const probe = { executable: real, version: [3, 99, 0] as [number, number, number] };
    expect(cachedProbe(shim, env, dir)).toBeUndefined();
    storeProbe(shim, env, dir, probe);
    expect(cachedProbe(shim, env, dir)).toEqual(probe);
    // pyenv's switches: a variable, a local version file, the global version file.
    expect(cachedProbe(shim, { ...env, PYENV_VERSION: '3.12' }, dir)).toBeUndefined();
    writeFileSync(join(dir, '.python-version'), '3.12\n');
    expect(cachedProbe(shim, env, dir)).toBeUndefined();
    storeProbe(shim, env, dir, probe);
    expect(cachedProbe(shim, env, dir)).toEqual(probe);
    mkdirSync(join(dir, '.pyenv'));
    writeFileSync(join(dir, '.pyenv', 'version'), '3.10\n');
    expect(cachedProbe(shim, env, dir)).toBeUndefined();
    storeProbe(shim, env, dir, probe);
    // The interpreter the probe found was replaced.
    rmSync(real);
    writeFileSync(real, 'new');
    expect(cachedProbe(shim, env, dir)).toBeUndefined();
    expect(cachedProbe(shim, { ...env, OMP_EVAL_NO_PROBE_CACHE: '1' }, dir)).toBeUndefined();
  });
});
