/**
 * The sandbox's memory limit (a cgroup here, RLIMIT_DATA where none can be made), the sandbox as
 * the front ends set it (`--sandbox`, mcp's default), and a clear failure where bubblewrap is
 * missing: a sandboxed mode never runs unsandboxed.
 */
import { existsSync, mkdtempSync, readFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { createExecutor, Kernel, SandboxError, type SandboxSettings } from '../../src/eval/index.js';
import { memoryMethodHere } from '../../src/eval/sandbox/cgroup.js';
import { cli } from '../helpers/cli.js';
import { makeExecutor } from '../helpers/executor.js';
import { run, startKernel } from '../helpers/kernel.js';
import { evalCell, startStdio, stopAll, textOf } from '../helpers/mcp.js';

const WS: SandboxSettings = { mode: 'workspace-write', allowNetwork: false, writableRoots: [] };
const freshDir = (name: string) => realpathSync(mkdtempSync(join(tmpdir(), `omp-sbx-${name}-`)));
/** Touches 400 MB, far beyond the 128 MB the tests allow. */
const HOG = 'hog = b"x" * (400 << 20)';

afterAll(stopAll);
afterEach(() => {
  vi.unstubAllEnvs();
});

describe('sandbox: memory limit', () => {
  it.runIf(memoryMethodHere() === 'cgroup')(
    'a cell beyond --memory-limit stops the kernel, is reported and not retried; the next cell gets a fresh kernel',
    async () => {
      const cwd = freshDir('mem');
      const ex = makeExecutor({
        settings: { 'sandbox.mode': 'workspace-write', 'sandbox.memoryLimitMb': 128 },
      });
      const s = await ex.session({ cwd });
      await s.run([{ code: 'kept = 1' }]);
      const [r] = await s.run([{ code: `open("runs", "a").write("x")\n${HOG}` }]);
      expect(r).toMatchObject({ status: 'error', retried: false, kernelKilled: false });
      expect(r?.error?.evalue).toMatch(/^The Python kernel exceeded 128 MB and was stopped/);
      expect(r?.text).toContain(
        'exceeded 128 MB and was stopped (--memory-limit). This cell is not run again, and the cells after it in this call are skipped',
      );
      expect(readFileSync(join(cwd, 'runs'), 'utf8')).toBe('x'); // ran once
      const [next] = await s.run([{ code: '"kept" in globals()' }]);
      expect(next).toMatchObject({ status: 'ok', text: 'False\n' });
    },
  );

  it.runIf(memoryMethodHere() === 'cgroup')('the limit covers the kernel’s child processes too', async () => {
    const k = await startKernel({ cwd: freshDir('memchild'), sandbox: { ...WS, memoryLimitMb: 128 } });
    const r = await run(
      k,
      `import subprocess, sys\nsubprocess.run([sys.executable, "-c", ${JSON.stringify(HOG)}]).returncode`,
    );
    expect(r.result?.['text/plain']).toBe('-9'); // the out-of-memory killer took the child
    expect((await run(k, '1 + 1')).result?.['text/plain']).toBe('2'); // the kernel lives on
  });

  it('without a cgroup, RLIMIT_DATA: Python raises MemoryError with a hint, a JavaScript kernel is stopped and reported', async () => {
    const sandbox: SandboxSettings = { ...WS, memoryLimitMb: 128, memoryMethod: 'rlimit' };
    const py = await startKernel({ cwd: freshDir('rlimit'), sandbox });
    const r = await run(py, HOG);
    expect(r.outcome.error?.ename).toBe('MemoryError');
    expect(r.outcome.error?.evalue).toContain('may use 128 MB (--memory-limit)');
    expect(py.state).toBe('idle');
    const js = await startKernel({ cwd: freshDir('rlimitjs'), sandbox, language: 'js' });
    const j = await run(js, 'const hog = []; for (;;) hog.push(Buffer.alloc(1 << 20, 1))');
    expect(j.outcome.exit?.reason).toBe('memory-limit');
    expect(j.outcome.error?.evalue).toContain('The JavaScript kernel exceeded 128 MB and was stopped');
  });
});

describe('sandbox: without bubblewrap', () => {
  it('fails at once, naming the package and the flag that turns the sandbox off', async () => {
    vi.stubEnv('OMP_EVAL_BWRAP', '/nonexistent/bwrap');
    const expected = /needs bubblewrap[\s\S]*install the package bubblewrap[\s\S]*--sandbox off/;
    expect(() => createExecutor({ settings: { 'sandbox.mode': 'workspace-write' } })).toThrow(expected);
    await expect(Kernel.start({ cwd: freshDir('nobwrap'), sandbox: WS })).rejects.toThrow(SandboxError);
    expect(() => createExecutor({ settings: { 'sandbox.mode': 'off' } })).not.toThrow();
  });

  it('the CLI exits with the message and runs nothing; mcp exits before serving', async () => {
    const env = { OMP_EVAL_BWRAP: '/nonexistent/bwrap' };
    const cwd = freshDir('clinobwrap');
    const r = await cli(['--sandbox', 'workspace-write', 'run', '-'], {
      input: 'open("ran", "w")',
      env,
      cwd,
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/install the package bubblewrap[\s\S]*--sandbox off/);
    expect(existsSync(join(cwd, 'ran'))).toBe(false);
    const mcp = await cli(['mcp'], { env, cwd });
    expect(mcp.code).toBe(1);
    expect(mcp.stderr).toMatch(/^omp-eval mcp: The sandbox \(workspace-write\) needs bubblewrap/);
  });
});

describe('sandbox: front ends', () => {
  const pid1 = 'print(open("/proc/1/cmdline").read().split("\\0")[0])';

  it('run and tool are unsandboxed by default, --sandbox puts them in one', async () => {
    const env = { OMP_EVAL_SANDBOX: '' };
    const plain = await cli(['run', '-'], { input: pid1, env });
    expect(plain.stdout).not.toMatch(/bwrap/);
    const boxed = await cli(['--sandbox', 'read-only', '--memory-limit', '256', 'run', '-'], {
      input: pid1,
      env,
    });
    expect(boxed.stdout).toMatch(/bwrap\n$/);
    const tool = await cli(['--sandbox', 'workspace-write', 'tool'], {
      input: JSON.stringify({ cells: [{ language: 'py', code: pid1 }] }),
      env,
    });
    expect(JSON.parse(tool.stdout).text).toMatch(/bwrap/);
  });

  it('--memory-limit holds for run and tool with the sandbox off, their default', async () => {
    const env = { OMP_EVAL_SANDBOX: '' };
    const big = 'x = b"1" * (400 * 1024 * 1024)\nprint("allocated")';
    const run = await cli(['--memory-limit', '128', 'run', '-'], { input: big, env });
    expect(run.stdout).not.toContain('allocated');
    expect(run.stderr).toContain('exceeded 128 MB and was stopped (--memory-limit)');
    const tool = await cli(['--memory-limit', '128', 'tool'], {
      input: JSON.stringify({ cells: [{ language: 'py', code: big }] }),
      env,
    });
    expect(JSON.parse(tool.stdout).text).toContain('exceeded 128 MB and was stopped (--memory-limit)');
  });

  it('omp-eval mcp runs agents’ cells in workspace-write by default, and --sandbox off turns it off', async () => {
    const env = { OMP_EVAL_SANDBOX: '' };
    const boxed = await startStdio({ env, cwd: freshDir('mcp') });
    const text = textOf(await evalCell(boxed.client, `${pid1}\nopen("/etc/omp-sbx-x", "w")`));
    expect(text).toMatch(/bwrap\n[\s\S]*Read-only file system[\s\S]*sandbox \(workspace-write\)/);
    const description = (await boxed.client.listTools()).tools.find((t) => t.name === 'eval')?.description;
    expect(description).toMatch(
      /Sandbox \(workspace-write\): .* write only in the working directory, \$TMPDIR .*the network is off/,
    );
    const off = await startStdio({ args: ['--sandbox', 'off', 'mcp'], env, cwd: freshDir('mcpoff') });
    expect(textOf(await evalCell(off.client, pid1))).not.toMatch(/bwrap/);
    expect((await off.client.listTools()).tools.find((t) => t.name === 'eval')?.description).not.toContain(
      'Sandbox',
    );
  });

  it('setup python --check says which sandbox each command uses', async () => {
    const env = { OMP_EVAL_SANDBOX: '' };
    const check = await cli(['setup', 'python', '--check'], { env });
    expect(check.stdout).toMatch(
      /^sandbox: +off; omp-eval mcp: workspace-write \(network off, memory 2048 MB\)$/m,
    );
    const set = await cli(
      ['--sandbox', 'read-only', '--allow-network', '--memory-limit', '512', 'setup', 'python', '--check'],
      {
        env,
      },
    );
    expect(set.stdout).toMatch(/^sandbox: +read-only \(network on, memory 512 MB\)$/m);
    expect(set.stdout).toMatch(/^bubblewrap: +\/\S*bwrap$/m);
    const missing = await cli(['--sandbox', 'workspace-write', 'setup', 'python', '--check'], {
      env: { ...env, OMP_EVAL_BWRAP: '/nonexistent/bwrap' },
    });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('install the package bubblewrap');
  });
});
