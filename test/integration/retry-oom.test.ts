/**
 * Issue 14 item 11: a cell whose kernel ran out of memory is not run again (it would run out
 * again). Real out-of-memory deaths: a js heap capped small, and a Python kernel the system's
 * out-of-memory killer ends inside a memory cgroup the test makes (CI runs as root).
 */
import { existsSync, mkdirSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeExecutor } from '../helpers/executor.js';

describe('no retry after the kernel ran out of memory', () => {
  it('a js cell that exhausts its heap ends once, saying it ran out of memory', async () => {
    const executor = makeExecutor({
      hostEnv: { ...process.env, NODE_OPTIONS: '--max-old-space-size=48' },
      settings: { 'env.pass': ['NODE_OPTIONS'] },
    });
    const s = await executor.session({ requirePython: false });
    const [r] = await s.run([
      {
        language: 'js',
        code: 'const a = []\nfor (;;) a.push(String(Math.random()).repeat(64))',
      },
    ]);
    expect(r).toMatchObject({ status: 'error', retried: false });
    expect(r?.notices.at(-1)).toMatch(
      /^The JavaScript kernel ran out of memory \(.*: the JavaScript heap is out of memory\); the cell was not run again/,
    );
  });

  describe('in a memory cgroup', () => {
    const v1 = '/sys/fs/cgroup/memory';
    const group = join(v1, `omp-oom-${process.pid}`);
    beforeAll(() => {
      if (!existsSync(join(v1, 'cgroup.procs')))
        throw new Error(
          'this test needs the cgroup v1 memory controller at /sys/fs/cgroup/memory (run as root)',
        );
      mkdirSync(group);
      writeFileSync(join(group, 'memory.limit_in_bytes'), String(150 * 1024 * 1024));
    });
    afterAll(() => {
      rmdirSync(group);
    });

    it('a Python kernel the out-of-memory killer ended is not retried', async () => {
      // The cell moves itself into the host's cgroup, which a sandboxed kernel cannot reach (the
      // sandbox's own memory limit is tested in sandbox-limits.test.ts): this one is not sandboxed.
      const executor = makeExecutor({ settings: { 'sandbox.mode': 'off' } });
      const s = await executor.session();
      const [r] = await s.run([
        {
          language: 'py',
          code: `import os\nopen(${JSON.stringify(join(group, 'cgroup.procs'))}, "w").write(str(os.getpid()))\nblob = b"x" * 600_000_000`,
        },
      ]);
      expect(r).toMatchObject({ status: 'error', retried: false, exitCode: 137 });
      expect(r?.notices.at(-1)).toBe(
        "The Python kernel ran out of memory (signal SIGKILL: killed by the system's out-of-memory killer); the cell was not run again, since it would run out again. The next cell starts a new kernel: earlier state is gone.",
      );
      const [next] = await s.run([{ language: 'py', code: '1 + 1' }]);
      expect(next?.text).toBe('2\n');
    });
  });
});
