/**
 * Issue 14 items 8, 9, 10, 14, 17 and 18 through `omp-eval tool`: the artifacts folder bounded
 * and honest on a full disk, config files that are not files, a flood on stdin, a descriptor the
 * host inherited, and another user who takes the names of the private folders first. (CI runs as root: the tests mount a small tmpfs
 * and create a second user, and undo both.)
 */
import { execFileSync, spawn } from 'node:child_process';
import {
  chmodSync,
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  statfsSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KERNEL_FILES } from '../../src/eval/launch/runnerFile.js';
import { BIN, cli } from '../helpers/cli.js';

const uid = process.getuid?.() ?? 0;
const scratch = () => mkdtempSync(join(tmpdir(), 'omp-hardening-'));
const py = (code: string) => ({ language: 'py' as const, code });

async function tool(cells: object[], env: NodeJS.ProcessEnv, args: string[] = []) {
  const r = await cli([...args, 'tool'], { input: JSON.stringify({ cells }), env });
  return { code: r.code, stderr: r.stderr, ...JSON.parse(r.stdout) };
}

function config(dir: string, settings: object): string {
  const path = join(dir, 'config.json');
  writeFileSync(path, JSON.stringify(settings));
  return path;
}

/** Every file under `dir`, relative to it. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)));
}

describe('item 8: the artifacts folder is bounded', () => {
  it('one artifact stops at its cap, and the marker and the closing line say the same', async () => {
    const tmp = scratch();
    const r = await tool([py('for i in range(100_000):\n    print("line", i)')], {
      TMPDIR: tmp,
      OMP_EVAL_CONFIG: config(tmp, { artifacts: { maxFileMB: 0.1 } }),
    });
    const { truncation, text } = r.cells[0];
    expect(statSync(truncation.artifactPath).size).toBeLessThanOrEqual(100_000);
    expect(truncation.fullOutput).toMatch(
      /^only the first \d+ chars were saved, in artifact:\/\/[\w-]+ \(.*\): the artifact cap of 0\.1 MB was reached$/,
    );
    expect(text).toContain(`; ${truncation.fullOutput}]`);
    expect(r.text).toContain(
      `[output truncated: ${truncation.totalChars} chars in all; ${truncation.fullOutput}]`,
    );
    expect(r.text).not.toContain('full output:');
  });

  it('the folder stays under its total: the oldest files are removed first', async () => {
    const tmp = scratch();
    const folder = join(tmp, `omp-eval-artifacts-${uid}`);
    mkdirSync(folder, { mode: 0o700 });
    const now = Date.now() / 1000;
    for (let i = 1; i <= 5; i++) {
      const file = join(folder, `old-${i}.txt`);
      writeFileSync(file, 'o'.repeat(100_000));
      utimesSync(file, now - 600 + i, now - 600 + i); // old-1 is the oldest
    }
    const r = await tool([py('for i in range(30_000):\n    print("line", i)')], {
      TMPDIR: tmp,
      OMP_EVAL_CONFIG: config(tmp, { artifacts: { maxFileMB: 0.1, maxTotalMB: 0.35 } }),
    });
    // (The new artifact is in its executor's folder, one level down.)
    const files = readdirSync(folder, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
    expect(files.map((e) => e.name).sort()).toEqual(
      ['old-4.txt', 'old-5.txt', `${r.cells[0].truncation.artifact.slice('artifact://'.length)}.txt`].sort(),
    );
  });
});

describe('item 8: a full disk', () => {
  let disk = '';
  beforeAll(() => {
    disk = mkdtempSync(join(tmpdir(), 'omp-fulldisk-'));
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=2m,mode=1777', 'tmpfs', disk]);
  });
  afterAll(() => {
    execFileSync('umount', ['-l', disk]);
  });

  it('the notice and the closing line agree on what was saved', async () => {
    const tmp = join(disk, 'artifacts');
    mkdirSync(tmp);
    await tool([py('1')], { TMPDIR: tmp }); // the kernel's files first
    // About 200 KB left for the artifact of 2 MB of output.
    const { bavail, bsize } = statfsSync(tmp);
    writeFileSync(join(tmp, 'fill'), Buffer.alloc(Math.max(0, bavail * bsize - 200_000)));
    const r = await tool([py('for i in range(200_000):\n    print("line", i)')], { TMPDIR: tmp });
    const { truncation, text } = r.cells[0];
    expect(truncation.artifactError).toMatch(/no space left on device \(ENOSPC\)/);
    expect(truncation.fullOutput).toMatch(/^only the first \d+ chars were saved, in artifact:\/\//);
    expect(text).toContain(`; ${truncation.fullOutput}]`);
    expect(r.text).toContain(`chars in all; ${truncation.fullOutput}]`);
    expect(r.text).not.toContain('full output:');
  });

  it('a kernel that cannot start for lack of space says so and leaves no partial file', async () => {
    const tmp = join(disk, 'kernel');
    mkdirSync(tmp);
    execFileSync('sh', ['-c', `dd if=/dev/zero of=${tmp}/fill bs=1k count=100000 2>/dev/null || true`]);
    const r = await tool([py('1')], { TMPDIR: tmp });
    expect(r.cells[0].status).toBe('error');
    expect(r.text).toMatch(
      /The Python kernel could not be started: cannot write the kernel's files: no space left on device \(ENOSPC\)/,
    );
    const cache = join(tmp, `omp-python-runner-${uid}`);
    // (the sweep markers are empty files: whole, whatever the disk)
    const allowed = new Set([...KERNEL_FILES, 'probes.json', '.swept-legacy', '.swept-versions']);
    const stray = existsSync(cache)
      ? filesUnder(cache).filter((f) => !allowed.has(f.replace(/^[0-9a-f]{16}\//, '')))
      : [];
    expect(stray).toEqual([]);
  });
});

describe('item 9: config files that are not files', () => {
  it('a character device or a FIFO is a clear error at once', async () => {
    const fifo = join(scratch(), 'config.json');
    execFileSync('mkfifo', [fifo]);
    for (const [path, kind] of [
      ['/dev/zero', 'a character device'],
      [fifo, 'a FIFO'],
    ]) {
      const r = await cli(['tool'], {
        input: JSON.stringify({ cells: [py('1')] }),
        env: { OMP_EVAL_CONFIG: path },
      });
      expect(r.code).toBe(2);
      expect(JSON.parse(r.stdout).error).toBe(`the config file ${path} is ${kind}, not a JSON file`);
    }
  });

  it('a config file with a UTF-8 byte order mark is read', async () => {
    const dir = scratch();
    const path = join(dir, 'config.json');
    writeFileSync(path, `\uFEFF${JSON.stringify({ eval: { js: false } })}`);
    const r = await tool([{ language: 'js', code: '1' }], { OMP_EVAL_CONFIG: path });
    expect(r.text).toContain('The JavaScript backend is disabled');
  });
});

describe('item 10: a flood on stdin', () => {
  it('600 MB of input: exit 2 and a clear message, no stack trace', async () => {
    const child = spawn(process.execPath, [BIN, 'tool'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
    });
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    const mb = Buffer.alloc(1 << 20, 'x');
    const flood = Readable.from(
      (function* () {
        yield Buffer.from('{"cells": [{"language": "py", "code": "');
        for (let i = 0; i < 600; i++) yield mb;
      })(),
    );
    await pipeline(flood, child.stdin).catch(() => {}); // EPIPE once the tool stopped reading
    expect(await exited).toBe(2);
    const answer = JSON.parse(stdout);
    expect(answer).toEqual({
      error: expect.stringMatching(/^the input is larger than 64 MiB; the eval tool reads at most that much/),
      problems: [answer.error], // as every other input error
      isError: true,
    });
    expect(stderr).toBe('');
  }, 180_000);
});

describe('items 17 and 18: another user takes the names of the private folders first', () => {
  const other = `ompeval${process.pid % 100000}`;
  beforeAll(() => {
    execFileSync('useradd', ['--no-create-home', '--shell', '/usr/sbin/nologin', other]);
  });
  afterAll(() => {
    execFileSync('userdel', [other]);
  });
  const asOther = (...command: string[]) => execFileSync('runuser', ['-u', other, '--', ...command]);

  for (const how of ['a directory', 'a symlink'] as const) {
    it(`artifacts and agent handles still work when ${how} holds the name; the fallbacks are reused`, async () => {
      const base = scratch();
      chmodSync(base, 0o1777);
      const artifacts = join(base, `omp-eval-artifacts-${uid}`);
      const runner = join(base, `omp-python-runner-${uid}`);
      if (how === 'a directory') {
        asOther('mkdir', '-m', '0777', artifacts);
        asOther('mkdir', '-m', '0777', runner);
      } else {
        asOther('ln', '-s', '/tmp', artifacts);
        asOther('ln', '-s', '/tmp', runner);
      }
      const cells = [
        py('for i in range(30_000):\n    print("line", i)'),
        py('import json\nnode = agent("hello", handle=True)\njson.loads(read(node["handle"]))["output"]'),
      ];
      const env = { TMPDIR: base };
      const first = await tool(cells, env, ['--agent-command', 'echo answered']);
      const second = await tool(cells, env, ['--agent-command', 'echo answered']);
      for (const r of [first, second]) {
        expect(r.cells.map((c: { status: string }) => c.status)).toEqual(['ok', 'ok']);
        expect(r.cells[1].text).toContain("'answered'");
        expect(r.cells[0].truncation.artifactPath.startsWith(`${artifacts}-`)).toBe(true);
        expect(readFileSync(r.cells[0].truncation.artifactPath, 'utf8')).toContain('line 29999\n');
      }
      const dirs = (prefix: string) => readdirSync(base).filter((n) => n.startsWith(`${prefix}-${uid}-`));
      // One fallback each, used by both runs.
      expect(dirs('omp-eval-artifacts')).toHaveLength(1);
      expect(dirs('omp-python-runner')).toHaveLength(1);
      expect(statSync(join(base, dirs('omp-eval-artifacts')[0] as string)).mode & 0o777).toBe(0o700);
    });
  }
});

describe('descriptors the host inherited (issue 14 item 14)', () => {
  it('a non-CLOEXEC fd 251 of the host reaches no kernel, in either language, nor their children', async () => {
    const held = openSync('/dev/null', 'r');
    const cells = [
      py(
        [
          'import os, subprocess',
          'print("host", os.path.exists("/proc/%d/fd/251" % os.getppid()))',
          'print("py", *sorted(os.listdir("/proc/self/fd"), key=int))',
          'print("pychild", *subprocess.run(["ls", "/proc/self/fd"], capture_output=True, text=True).stdout.split())',
        ].join('\n'),
      ),
      {
        language: 'js',
        code: [
          "const fs = require('fs');",
          "console.log('js', fs.readdirSync('/proc/self/fd').join(' '));",
          "console.log('jschild', require('child_process').execSync('ls /proc/self/fd').toString().trim().split(/\\s+/).join(' '));",
        ].join('\n'),
      },
    ];
    // fd 251 of the host: open, inheritable, with nothing in between (3–250 closed).
    const stdio = ['pipe', 'pipe', 'pipe', ...Array(248).fill('ignore'), held] as const;
    const child = spawn(process.execPath, [BIN, 'tool'], { stdio: [...stdio] });
    closeSync(held);
    let stdout = '';
    child.stdout?.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
    });
    child.stdin?.end(JSON.stringify({ cells }));
    await new Promise((resolve) => child.once('close', resolve));
    const result = JSON.parse(stdout) as { isError: boolean; text: string };
    expect(result.isError).toBe(false);
    const line = (name: string) =>
      (new RegExp(`^${name} (.*)$`, 'm').exec(result.text)?.[1] ?? '').split(' ').filter(Boolean);
    expect(line('host')).toEqual(['True']); // the host held it
    for (const name of ['py', 'pychild', 'js', 'jschild']) {
      expect(line(name).length, name).toBeGreaterThan(2);
      expect(line(name), name).not.toContain('251');
    }
  });
});
