/** The sandbox's pure parts: where it can run, its settings, bwrap's arguments, error hints. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ErrorFrame } from '../../src/eval/protocol/index.js';
import { bwrapArgs, sandboxProblem } from '../../src/eval/sandbox/bwrap.js';
import { annotateError } from '../../src/eval/sandbox/hints.js';
import {
  describeSandbox,
  type SandboxSettings,
  sandboxFromEnv,
  sandboxOf,
} from '../../src/eval/sandbox/settings.js';
import { loadSettings, SettingsError } from '../../src/eval/settings.js';

const WS: SandboxSettings = { mode: 'workspace-write', allowNetwork: false, writableRoots: [] };
const places = { cwd: '/w', tmp: '/t', roots: ['/r'] };

function configWith(value: unknown): NodeJS.ProcessEnv {
  const file = join(mkdtempSync(join(tmpdir(), 'omp-cfg-')), 'config.json');
  writeFileSync(file, JSON.stringify(value));
  return { OMP_EVAL_CONFIG: file };
}

describe('sandbox: where it can run', () => {
  it('macOS and other systems fail clearly, naming the plan and the flag that turns it off', () => {
    expect(sandboxProblem(WS, {}, 'darwin')).toMatch(
      /not available on macOS yet \(a sandbox-exec profile is planned\).*--sandbox off/,
    );
    expect(sandboxProblem(WS, {}, 'win32')).toMatch(/needs Linux with bubblewrap.*--sandbox off/);
    expect(sandboxProblem({ ...WS, mode: 'off' }, {}, 'darwin')).toBeUndefined();
  });

  it('Linux without bwrap on PATH names the package to install', () => {
    expect(sandboxProblem(WS, { PATH: '/nonexistent' }, 'linux')).toMatch(
      /needs bubblewrap \(bwrap is not on PATH\): install the package bubblewrap .*--sandbox off/,
    );
  });
});

describe('sandbox: settings', () => {
  it('come from the config file and flags; roots add up; bad values name the rule', () => {
    const env = configWith({ sandbox: { mode: 'read-only', writableRoots: ['/a'], memoryLimitMb: 512 } });
    const settings = loadSettings({ 'sandbox.writableRoots': ['/b'], 'sandbox.allowNetwork': true }, env);
    expect(sandboxOf(settings, {})).toEqual({
      mode: 'read-only',
      allowNetwork: true,
      writableRoots: ['/a', '/b'],
      memoryLimitMb: 512,
    });
    expect(() => loadSettings({}, configWith({ 'sandbox.mode': 'on' }))).toThrow(
      /setting "sandbox.mode" in .* must be "off", "read-only" or "workspace-write", got "on"/,
    );
    expect(() => loadSettings({}, configWith({ 'sandbox.memoryLimitMb': -1 }))).toThrow(SettingsError);
  });

  it('the mode: the setting, else $OMP_EVAL_SANDBOX, else the front end’s default', () => {
    const settings = loadSettings({}, configWith({}));
    expect(sandboxOf(settings, {}).mode).toBe('off');
    expect(sandboxOf(settings, {}, 'workspace-write').mode).toBe('workspace-write');
    expect(sandboxOf(settings, { OMP_EVAL_SANDBOX: 'read-only' }, 'workspace-write').mode).toBe('read-only');
    expect(sandboxOf({ ...settings, 'sandbox.mode': 'off' }, { OMP_EVAL_SANDBOX: 'read-only' }).mode).toBe(
      'off',
    );
    expect(sandboxFromEnv({ OMP_EVAL_SANDBOX: 'workspace-write' }).mode).toBe('workspace-write');
    expect(() => sandboxFromEnv({ OMP_EVAL_SANDBOX: 'yes' })).toThrow(
      /OMP_EVAL_SANDBOX must be one of off, read-only, workspace-write/,
    );
  });

  it('are described for the status line: mode, network, memory (2048 MB unless set, 0 for none)', () => {
    expect(describeSandbox(WS)).toBe('workspace-write (network off, memory 2048 MB)');
    expect(describeSandbox({ ...WS, allowNetwork: true, writableRoots: ['/a'], memoryLimitMb: 0 })).toBe(
      'workspace-write (network on, +1 writable)',
    );
    expect(describeSandbox({ ...WS, mode: 'off' })).toBe('off');
    expect(describeSandbox({ ...WS, mode: 'off', memoryLimitMb: 300 })).toBe('off (memory 300 MB)');
  });
});

describe('sandbox: bwrap arguments', () => {
  it('workspace-write binds the temp dir, the cwd and the roots writable over a read-only root', () => {
    const args = bwrapArgs(
      WS,
      {
        ...places,
        hidden: [
          { path: '/h/.ssh', dir: true },
          { path: '/h/.netrc', dir: false },
        ],
        readOnly: ['/w/.git'],
      },
      6,
    ).join(' ');
    expect(args).toMatch(
      /^--die-with-parent --unshare-pid --unshare-ipc --unshare-net --cap-drop ALL --seccomp 6 --ro-bind \/ \/ --dev \/dev --proc \/proc --ro-bind \/proc\/sys \/proc\/sys /,
    );
    // The writable places, then what is hidden or read-only inside them, then the temp dir.
    expect(args).toMatch(
      / --bind \/w \/w --bind \/r \/r --tmpfs \/h\/.ssh --ro-bind \/dev\/null \/h\/.netrc --ro-bind \/w\/.git \/w\/.git --bind \/t \/t --chdir \/w --$/,
    );
  });

  it('read-only leaves the cwd read-only; --allow-network keeps the host network', () => {
    const args = bwrapArgs({ ...WS, mode: 'read-only', allowNetwork: true }, places).join(' ');
    expect(args).not.toContain('--bind /w /w');
    expect(args).not.toContain('--unshare-net');
    expect(args).toContain('--bind /r /r --bind /t /t --chdir /w');
  });
});

describe('sandbox: error hints', () => {
  const error = (evalue: string, ename = 'OSError'): ErrorFrame => ({
    type: 'error',
    id: 'c1',
    ename,
    evalue,
    traceback: [`${ename}: ${evalue}`],
  });

  it('say the network is off only when it is', () => {
    const refused = error('[Errno 111] Connection refused', 'ConnectionRefusedError');
    expect(annotateError(refused, WS, places).evalue).toContain(
      'the network is off in this sandbox (workspace-write)',
    );
    expect(annotateError(refused, { ...WS, allowNetwork: true }, places)).toBe(refused);
    expect(annotateError(refused, { ...WS, mode: 'off' }, places)).toBe(refused);
  });

  it('name the writable places of the mode', () => {
    const readOnly = error("[Errno 30] Read-only file system: '/etc/x'");
    expect(annotateError(readOnly, WS, places).traceback.at(-1)).toBe(
      'omp-eval: the sandbox (workspace-write) lets cells write only in the working directory (/w), $TMPDIR (/t), /r. Run with --add-writable-root DIR to open a directory, or --sandbox off.',
    );
    expect(annotateError(readOnly, { ...WS, mode: 'read-only' }, places).evalue).toContain(
      'the sandbox (read-only) lets cells write only in $TMPDIR (/t), /r.',
    );
  });

  it('give the memory limit with a MemoryError, and leave other errors alone', () => {
    expect(annotateError(error('', 'MemoryError'), { ...WS, memoryLimitMb: 300 }, places).evalue).toBe(
      'omp-eval: the kernel and its processes may use 300 MB (--memory-limit).',
    );
    const other = error('division by zero', 'ZeroDivisionError');
    expect(annotateError(other, WS, places)).toBe(other);
  });
});
