/**
 * The sandbox escape suite (issue 40): each way out that was found, tried for real from inside a
 * sandboxed kernel. A test fails when the escape worked: a file written outside the roots, a
 * secret read, a socket answered, a sysctl changed, a foreign file deleted, a host process seen.
 * `.ci/run` runs it as root and as an unprivileged user. Whatever a test could change on the
 * host it restores, even when it fails.
 */
import { spawn } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createExecutor, type Executor, runEvalTool, type SandboxSettings } from '../../src/eval/index.js';
import { ensureRunnerFile } from '../../src/eval/launch/runnerFile.js';
import { CODE_CACHE } from '../../src/eval/process/descriptors.js';
import { sweepTempDirs, tempParent } from '../../src/eval/sandbox/sandbox.js';
import { run, startKernel } from '../helpers/kernel.js';

const WS: SandboxSettings = { mode: 'workspace-write', allowNetwork: false, writableRoots: [] };
const isRoot = process.getuid?.() === 0;
const scratch: string[] = [];

function freshDir(name: string, base = tmpdir()): string {
  const dir = realpathSync(mkdtempSync(join(base, `omp-esc-${name}-`)));
  scratch.push(dir);
  return dir;
}

afterAll(() => {
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

function sandboxed(cwd: string, more: Partial<SandboxSettings> = {}, hostEnv?: NodeJS.ProcessEnv) {
  return startKernel({ cwd, sandbox: { ...WS, ...more }, ...(hostEnv ? { hostEnv } : {}) });
}

/** Python that tries to write each path and prints {path: "written" | strerror}. */
function tryWrites(paths: string[]): string {
  return `import json\nresults = {}\nfor p in ${JSON.stringify(paths)}:\n    try:\n        with open(p, "w") as f:\n            f.write("escaped")\n        results[p] = "written"\n    except OSError as e:\n        results[p] = e.strerror\nprint(json.dumps(results))`;
}

async function writes(k: Awaited<ReturnType<typeof sandboxed>>, paths: string[]) {
  const r = await run(k, tryWrites(paths));
  expect(r.outcome.error, r.stderr).toBeUndefined();
  return JSON.parse(r.stdout) as Record<string, string>;
}

describe('escape: Unix sockets of the host', () => {
  let server: Server;
  let outside: string;
  let path: string;
  let accepted = 0;
  beforeAll(async () => {
    outside = freshDir('sock');
    path = join(outside, 'host.sock');
    server = createServer((socket) => {
      accepted++;
      socket.end('pwned\n');
    });
    await new Promise<void>((resolve) => server.listen(path, resolve));
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('a Python cell cannot connect to a socket outside, and the error says why', async () => {
    const k = await sandboxed(freshDir('ws'));
    const r = await run(
      k,
      `import socket\ns = socket.socket(socket.AF_UNIX)\ns.connect(${JSON.stringify(path)})\nprint(s.recv(10))`,
    );
    expect(r.stdout).not.toContain('pwned');
    expect(r.outcome.error?.ename).toBe('PermissionError');
    expect(r.outcome.error?.evalue).toContain('Unix sockets');
    expect(accepted).toBe(0);
  });

  it('nor through a socket file inside the writable workspace, nor from a shell command', async () => {
    const ws = freshDir('ws');
    const inside = join(ws, 'inside.sock');
    const again = createServer((socket) => {
      accepted++;
      socket.end();
    });
    await new Promise<void>((resolve) => again.listen(inside, resolve));
    try {
      const k = await sandboxed(ws);
      const py = await run(
        k,
        `import socket\nsocket.socket(socket.AF_UNIX).connect(${JSON.stringify(inside)})`,
      );
      expect(py.outcome.error?.ename).toBe('PermissionError');
      // A program the cell starts inherits the filter (python3 stands for tmux, ssh, docker).
      const shell = await run(
        k,
        `import subprocess, sys\np = subprocess.run([sys.executable, "-c", "import socket; socket.socket(socket.AF_UNIX).connect(${JSON.stringify(path).replaceAll('"', '\\"')})"], capture_output=True, text=True)\nprint(p.returncode, p.stderr.strip().splitlines()[-1])`,
      );
      expect(shell.stdout).toMatch(/^1 PermissionError/);
      expect(accepted).toBe(0);
    } finally {
      await new Promise<void>((resolve) => again.close(() => resolve()));
    }
  });

  it('a JavaScript cell cannot connect either', async () => {
    const k = await startKernel({ cwd: freshDir('js'), language: 'js', sandbox: WS });
    const r = await run(
      k,
      `await new Promise((resolve, reject) => require('node:net').connect(${JSON.stringify(path)}).on('connect', resolve).on('error', reject))`,
    );
    expect(r.outcome.error?.evalue).toMatch(/EACCES/);
    expect(accepted).toBe(0);
  });

  it('socketpair, multiprocessing and loopback TCP inside the sandbox keep working', async () => {
    const k = await sandboxed(freshDir('ws'));
    const r = await run(
      k,
      [
        'import socket, multiprocessing, threading',
        'a, b = socket.socketpair(); a.sendall(b"pair"); print(b.recv(4).decode())',
        'def child(conn):\n    conn.send("pipe")\n    conn.close()',
        'ctx = multiprocessing.get_context("fork"); p, q = ctx.Pipe(); pr = ctx.Process(target=child, args=(q,)); pr.start(); print(p.recv()); pr.join()',
        'srv = socket.create_server(("127.0.0.1", 0)); port = srv.getsockname()[1]',
        'threading.Thread(target=lambda: srv.accept()[0].sendall(b"tcp"), daemon=True).start()',
        'print(socket.create_connection(("127.0.0.1", port)).recv(3).decode())',
      ].join('\n'),
    );
    expect(r.outcome.error, r.stderr).toBeUndefined();
    expect(r.stdout).toBe('pair\npipe\ntcp\n');
  });
});

describe('escape: the kernel of the host (/proc, /sys, /dev)', () => {
  const CORE = '/proc/sys/kernel/core_pattern';
  let corePattern = '';
  beforeAll(() => {
    corePattern = readFileSync(CORE, 'utf8');
  });
  afterEach(() => {
    // Restored whatever happened (a write that got through would have changed the host).
    if (isRoot && readFileSync(CORE, 'utf8') !== corePattern) writeFileSync(CORE, corePattern);
  });

  it('/proc/sys is read-only, also to root: core_pattern cannot be set', async () => {
    const k = await sandboxed(freshDir('ws'));
    const probe = join(freshDir('core'), 'h.sh');
    const r = await run(
      k,
      `try:\n    open(${JSON.stringify(CORE)}, "w").write("|${probe} %p")\n    print("written")\nexcept OSError as e:\n    print(e.strerror)\nprint([l.split()[3].split(",")[0] for l in open("/proc/self/mounts") if l.split()[1] == "/proc/sys"])`,
    );
    expect(r.stdout).not.toContain('written');
    expect(r.stdout).toMatch(/Read-only file system|Permission denied/);
    expect(r.stdout).toContain("['ro']");
    expect(readFileSync(CORE, 'utf8')).toBe(corePattern);
  });

  it('sysctls, /sys and the sysrq trigger refuse writes; no capabilities are left', async () => {
    const k = await sandboxed(freshDir('ws'));
    const paths = ['/proc/sys/vm/drop_caches', '/sys/kernel/uevent_helper'];
    if (existsSync('/proc/sysrq-trigger')) paths.push('/proc/sysrq-trigger');
    const result = await writes(k, paths);
    for (const p of paths) expect(result[p], p).not.toBe('written');
    const caps = await run(
      k,
      'print([l.split()[1] for l in open("/proc/self/status") if l.startswith("CapEff")][0])',
    );
    expect(caps.stdout.trim()).toBe('0000000000000000');
  });

  it('writes through /proc/self/root and /proc/1/root land nowhere; /dev/shm is the sandbox’s own', async () => {
    const ws = freshDir('ws');
    const outside = freshDir('out');
    const k = await sandboxed(ws);
    const name = `omp-esc-${process.pid}-${Date.now()}`;
    const result = await writes(k, [
      `/proc/self/root${outside}/x`,
      `/proc/1/root${outside}/y`,
      `/proc/self/cwd/../${outside.split('/').pop()}/z`,
      `/dev/shm/${name}`,
    ]);
    expect(readdirSync(outside)).toEqual([]);
    expect(existsSync(`/dev/shm/${name}`)).toBe(false);
    expect(result[`/proc/self/root${outside}/x`]).toBe('Read-only file system');
  });

  it('host processes are out of reach: not listed, no signal, no ptrace', async () => {
    const k = await sandboxed(freshDir('ws'));
    const r = await run(
      k,
      [
        'import os, ctypes, errno',
        `host = ${process.pid}`,
        'print(os.path.exists("/proc/%d" % host))',
        'try:\n    os.kill(host, 0)\n    print("signalled")\nexcept ProcessLookupError:\n    print("no such process")',
        'libc = ctypes.CDLL(None, use_errno=True)',
        'print(libc.ptrace(16, host, None, None), errno.errorcode[ctypes.get_errno()])', // PTRACE_ATTACH
      ].join('\n'),
    );
    expect(r.stdout).toBe('False\nno such process\n-1 ESRCH\n');
  });

  it('a fork bomb stops at the process limit, and the kernel goes on', async () => {
    const k = await sandboxed(freshDir('ws'), { pidsLimit: 64 });
    // The bomb is a small python of its own (-S: a few MB to copy at each fork, not the kernel's
    // tens), so that reaching a user's RLIMIT_NPROC of 4,096 stays quick on a loaded machine.
    const bomb = [
      'import os',
      'r, w = os.pipe(); pids = []; error = None',
      'try:\n    for _ in range(20000):\n        pid = os.fork()\n        if pid == 0:\n            os.close(w); os.read(r, 1); os._exit(0)\n        pids.append(pid)\nexcept OSError as e:\n    error = e.strerror',
      'os.close(w)',
      'for pid in pids:\n    os.waitpid(pid, 0)',
      'print(len(pids) < 20000, error)',
    ].join('\n');
    const r = await run(
      k,
      `import subprocess, sys\nprint(subprocess.run([sys.executable, "-S", "-c", ${JSON.stringify(bomb)}], capture_output=True, text=True).stdout, end="")`,
    );
    expect(r.outcome.error, r.stderr).toBeUndefined();
    expect(r.stdout).toMatch(/^True Resource temporarily unavailable/);
    expect((await run(k, 'print(1 + 1)')).stdout).toBe('2\n');
    // (As a user, RLIMIT_NPROC lets it reach 4,096 processes: long on a loaded machine.)
  }, 300_000);
});

describe('escape: files on the host', () => {
  it('.git, .venv, .mcp.json and the like stay read-only inside the writable workspace', async () => {
    const ws = freshDir('ws');
    mkdirSync(join(ws, '.git', 'hooks'), { recursive: true });
    mkdirSync(join(ws, '.venv', 'bin'), { recursive: true });
    writeFileSync(join(ws, '.mcp.json'), '{}');
    const k = await sandboxed(ws);
    const result = await writes(k, [
      join(ws, '.git', 'hooks', 'pre-commit'),
      join(ws, '.venv', 'bin', 'python'),
      join(ws, '.mcp.json'),
      join(ws, 'work.txt'),
    ]);
    expect(result).toEqual({
      [join(ws, '.git', 'hooks', 'pre-commit')]: 'Read-only file system',
      [join(ws, '.venv', 'bin', 'python')]: 'Read-only file system',
      [join(ws, '.mcp.json')]: 'Read-only file system',
      [join(ws, 'work.txt')]: 'written',
    });
    expect(readFileSync(join(ws, '.mcp.json'), 'utf8')).toBe('{}');
  });

  it('a root the user named explicitly stays writable', async () => {
    const ws = freshDir('ws');
    mkdirSync(join(ws, '.venv'));
    const k = await sandboxed(ws, { writableRoots: [join(ws, '.venv')] });
    expect(await writes(k, [join(ws, '.venv', 'x')])).toEqual({ [join(ws, '.venv', 'x')]: 'written' });
  });

  it('the runner cache and the history file stay read-only even under a writable root', async () => {
    const runner = ensureRunnerFile();
    const data = freshDir('data');
    mkdirSync(join(data, 'omp-eval'));
    writeFileSync(join(data, 'omp-eval', 'history.json'), '[]');
    const root = freshDir('root');
    const saved = process.env.XDG_DATA_HOME;
    process.env.XDG_DATA_HOME = data;
    try {
      const k = await sandboxed(freshDir('ws'), { writableRoots: [tmpdir(), data, root] });
      const planted = join(runner, '..', 'json.py');
      const result = await writes(k, [planted, join(data, 'omp-eval', 'history.json'), join(root, 'ok')]);
      expect(result[planted]).toBe('Read-only file system');
      expect(result[join(data, 'omp-eval', 'history.json')]).toBe('Read-only file system');
      expect(result[join(root, 'ok')]).toBe('written');
      expect(existsSync(planted)).toBe(false);
    } finally {
      if (saved === undefined) delete process.env.XDG_DATA_HOME;
      else process.env.XDG_DATA_HOME = saved;
    }
  });

  it('the code cache that run and tool execute cannot be made or written, even under a writable temp dir', async () => {
    // (Moved aside and put back: the test needs it missing, as on a machine where run never ran.)
    const cache = join(tmpdir(), `${CODE_CACHE}-${process.getuid?.()}`);
    const aside = `${cache}.aside-${process.pid}`;
    const had = existsSync(cache);
    if (had) renameSync(cache, aside);
    try {
      const k = await sandboxed(freshDir('ws'), { writableRoots: [tmpdir()] });
      const planted = join(cache, 'planted.bin');
      const made = await run(
        k,
        `import os\ntry:\n    os.makedirs(${JSON.stringify(cache)}, exist_ok=True)\n    open(${JSON.stringify(planted)}, "wb").write(b"code")\n    print("written")\nexcept OSError as e:\n    print(e.strerror)`,
      );
      expect(made.stdout.trim()).toBe('Read-only file system');
      expect(existsSync(planted)).toBe(false);
      // What the sandbox made so that it could keep it read-only is a private directory of ours.
      expect(lstatSync(cache).isDirectory()).toBe(true);
      expect(lstatSync(cache).mode & 0o077).toBe(0);
    } finally {
      rmSync(cache, { recursive: true, force: true });
      if (had) renameSync(aside, cache);
    }
  });

  it('a module planted beside runner.py is never imported by a kernel (sandboxed or not)', async () => {
    const runner = ensureRunnerFile();
    const marker = join(freshDir('mark'), 'imported');
    const planted = ['select.py', 'json.py', 'importlib.py'].map((name) => join(runner, '..', name));
    for (const file of planted) writeFileSync(file, `open(${JSON.stringify(marker)}, "w").write("x")\n`);
    try {
      const k = await startKernel({ cwd: freshDir('ws') });
      expect((await run(k, 'import json, select\nprint(json.dumps([1]))')).stdout).toBe('[1]\n');
      expect(existsSync(marker)).toBe(false);
    } finally {
      for (const file of planted) rmSync(file, { force: true });
    }
  });

  it('credentials are hidden; --allow-read opens one', async () => {
    const home = freshDir('home');
    for (const dir of ['.ssh', '.aws', '.kube', '.config/gcloud', '.docker'])
      mkdirSync(join(home, dir), { recursive: true });
    const secrets = [
      '.ssh/id_ed25519',
      '.aws/credentials',
      '.kube/config',
      '.config/gcloud/token',
      '.docker/config.json',
      '.netrc',
      '.git-credentials',
      '.npmrc',
    ];
    for (const file of secrets) writeFileSync(join(home, file), 'SECRET');
    const hostEnv = { ...process.env, HOME: home };
    const read = `import os, json\nout = {}\nfor p in ${JSON.stringify(secrets.map((s) => join(home, s)))}:\n    try:\n        out[p] = open(p).read()\n    except OSError as e:\n        out[p] = e.strerror\nprint(json.dumps(out))`;
    const hidden = await run(await sandboxed(freshDir('ws'), {}, hostEnv), read);
    expect(hidden.stdout).not.toContain('SECRET');
    const opened = await run(
      await sandboxed(freshDir('ws'), { allowRead: [join(home, '.aws')] }, hostEnv),
      read,
    );
    const values = JSON.parse(opened.stdout) as Record<string, string>;
    expect(values[join(home, '.aws/credentials')]).toBe('SECRET');
    expect(values[join(home, '.ssh/id_ed25519')]).not.toBe('SECRET');
  });

  it('other kernels’ temp dirs are hidden', async () => {
    const a = await sandboxed(freshDir('ws'));
    const mine = (await run(a, 'import os; print(os.environ["TMPDIR"])')).stdout.trim();
    writeFileSync(join(mine, 'spill'), 'SECRET');
    const b = await sandboxed(freshDir('ws'));
    const r = await run(b, `import os\nprint(os.path.exists(${JSON.stringify(join(mine, 'spill'))}))`);
    expect(r.stdout).toBe('False\n');
  });
});

describe('escape: other sessions’ outputs', () => {
  const executors: Executor[] = [];
  afterEach(async () => {
    await Promise.all(executors.splice(0).map((e) => e.dispose()));
  });

  it('a session reads its own artifacts in a later cell, never another session’s', async () => {
    // Two MCP sessions: each has a folder of artifacts of its own (kernelSession.ts).
    const make = (scope: string) => {
      const e = createExecutor({ settings: { 'sandbox.mode': 'workspace-write' }, artifactScope: scope });
      executors.push(e);
      return e;
    };
    const [a, b] = [make(`esc-a-${process.pid}`), make(`esc-b-${process.pid}`)];
    const big = { language: 'py' as const, code: 'print("SECRET-OUTPUT " * 40000)' };
    const first = await runEvalTool({ cells: [big] }, { executor: a, cwd: freshDir('a'), id: 'a' });
    const artifact = first.cells[0]?.truncation?.artifact;
    const path = first.cells[0]?.truncation?.artifactPath;
    expect(artifact, first.text).toMatch(/^artifact:\/\//);
    expect(path && readFileSync(path, 'utf8')).toContain('SECRET-OUTPUT');
    const own = await runEvalTool(
      { cells: [{ language: 'py', code: `print(read(${JSON.stringify(artifact)}, 0, 20))` }] },
      { executor: a, cwd: freshDir('a'), id: 'a2' },
    );
    expect(own.cells[0]?.text).toContain('SECRET-OUTPUT');
    const other = await runEvalTool(
      {
        cells: [
          {
            language: 'py',
            code: `import os\nfor p in [${JSON.stringify(path)}, os.path.dirname(${JSON.stringify(path)})]:\n    print(os.path.exists(p))\ntry:\n    read(${JSON.stringify(artifact)})\nexcept OSError as e:\n    print(type(e).__name__)`,
          },
        ],
      },
      { executor: b, cwd: freshDir('b'), id: 'b' },
    );
    expect(other.cells[0]?.text).toBe('False\nFalse\nFileNotFoundError\n');
  });
});

describe('escape: the temp-directory sweep', () => {
  it('removes only this user’s dead temp dirs, never another user’s files or a link’s target', () => {
    const base = freshDir('base');
    chmodSync(base, 0o1777);
    const victim = freshDir('victim');
    for (let i = 0; i < 20; i++) writeFileSync(join(victim, `f${i}`), 'keep');
    const dead = 2 ** 22 + 12345; // above any pid_max: no such process
    // Entries an attacker (or an older version) left in the shared temp dir.
    const foreign = join(base, `omp-eval-sandbox-${dead}-abcdef`);
    mkdirSync(foreign);
    writeFileSync(join(foreign, 'theirs'), 'keep');
    if (isRoot) chownSync(foreign, 65534, 65534);
    symlinkSync(victim, join(base, `omp-eval-sandbox-${dead + 1}-abcdef`));
    const parent = tempParent(base);
    expect(lstatSync(parent).mode & 0o777).toBe(0o700);
    // This user's own leftover, and a link a cell could have planted in its temp dir.
    const leftover = join(parent, `${dead}-abcdef`);
    mkdirSync(leftover);
    symlinkSync(victim, join(leftover, 'link'));
    sweepTempDirs(parent);
    expect(existsSync(leftover)).toBe(false);
    expect(readFileSync(join(foreign, 'theirs'), 'utf8')).toBe('keep');
    expect(readdirSync(victim)).toHaveLength(20);
  });

  it('a parent planted as a link by someone else is never used or swept', () => {
    const base = freshDir('base');
    const victim = freshDir('victim');
    writeFileSync(join(victim, `${2 ** 22 + 7}-abcdef`), 'keep');
    const uid = process.getuid?.() ?? 0;
    symlinkSync(victim, join(base, `omp-eval-sandbox-${uid}`));
    const parent = tempParent(base);
    expect(parent).not.toBe(realpathSync(victim));
    sweepTempDirs(join(base, `omp-eval-sandbox-${uid}`));
    expect(readdirSync(victim)).toHaveLength(1);
  });
});

describe('escape: the interpreter probe', () => {
  let executor: Executor;
  afterEach(async () => {
    await executor?.dispose();
  });

  it('a .venv a cell wrote is never run on the host; the session keeps its interpreter and says so', async () => {
    const ws = freshDir('ws');
    const outside = freshDir('outside');
    const marker = join(outside, 'ran-on-host');
    executor = createExecutor({ settings: { 'sandbox.mode': 'workspace-write' } });
    const script = `#!/bin/sh\necho "$$" > ${marker}\nexec /usr/bin/python3 "$@"\n`;
    const first = await runEvalTool(
      {
        cells: [
          {
            language: 'py',
            code: `import os\nx = 41\nos.makedirs(".venv/bin")\nopen(".venv/bin/python", "w").write(${JSON.stringify(script)})\nos.chmod(".venv/bin/python", 0o755)`,
          },
        ],
      },
      { executor, cwd: ws, id: 'agent' },
    );
    expect(first.isError, first.text).toBe(false);
    const second = await runEvalTool(
      { cells: [{ language: 'py', code: 'print(x + 1)' }] },
      { executor, cwd: ws, id: 'agent' },
    );
    expect(second.cells[0]?.text).toContain('42');
    expect(second.text).toContain('A different Python would now be chosen here');
    // Another session resolves the new interpreter: probed (and run) only inside the sandbox.
    const other = await runEvalTool(
      { cells: [{ language: 'py', code: 'print(7)' }] },
      { executor, cwd: ws, id: 'other' },
    );
    expect(other.text).toContain('7');
    expect(existsSync(marker)).toBe(false);
  });

  it('setup python --check probes a workspace .venv inside a sandbox', async () => {
    const ws = freshDir('ws');
    const marker = join(freshDir('outside'), 'ran-on-host');
    mkdirSync(join(ws, '.venv', 'bin'), { recursive: true });
    writeFileSync(
      join(ws, '.venv', 'bin', 'python'),
      `#!/bin/sh\necho x > ${marker}\nexec /usr/bin/python3 "$@"\n`,
    );
    chmodSync(join(ws, '.venv', 'bin', 'python'), 0o755);
    const cli = join(process.cwd(), 'bin', 'omp-eval.js');
    const out = await new Promise<string>((resolve) => {
      const child = spawn(process.execPath, [cli, 'setup', 'python', '--check'], {
        cwd: ws,
        env: { ...process.env, OMP_EVAL_NO_PROBE_CACHE: '1' },
      });
      let text = '';
      child.stdout.on('data', (d) => {
        text += d;
      });
      child.on('close', () => resolve(text));
    });
    expect(out).toContain('.venv');
    expect(existsSync(marker)).toBe(false);
  });
});
