/**
 * Sandboxed kernels (issue 19), with the real bubblewrap: the network is off, the file system is
 * read-only outside the cwd, $TMPDIR and the added roots, the host's processes are invisible; and
 * what the kernel does (interrupts, shell commands, input()) still works inside.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, realpathSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Language, SandboxSettings } from '../../src/eval/index.js';
import { interruptAfterReady, run, startKernel, waitFor } from '../helpers/kernel.js';

const WS: SandboxSettings = { mode: 'workspace-write', allowNetwork: false, writableRoots: [] };

function freshDir(name: string): string {
  return realpathSync(mkdtempSync(join(tmpdir(), `omp-sbx-${name}-`)));
}

function sandboxed(sandbox: Partial<SandboxSettings>, cwd: string, language: Language = 'py') {
  return startKernel({ cwd, language, sandbox: { ...WS, ...sandbox } });
}

/** Python that tries to write each path and prints {path: "written" | strerror}. */
function tryWrites(paths: string[]): string {
  return `import json\nresults = {}\nfor p in ${JSON.stringify(paths)}:\n    try:\n        open(p, "w").write("x")\n        results[p] = "written"\n    except OSError as e:\n        results[p] = e.strerror\nprint(json.dumps(results))`;
}

describe('sandbox: network', () => {
  let server: Server;
  let port = 0;
  let connections = 0;
  beforeAll(async () => {
    server = createServer((socket) => {
      connections++;
      socket.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const connect = (host: string) =>
    `import socket\nsocket.create_connection((${JSON.stringify(host)}, PORT), timeout=10)\nprint("connected")`;

  it('is off in workspace-write: the host loopback, any address and names fail, and the error says why', async () => {
    const k = await sandboxed({}, freshDir('net'));
    const local = await run(k, connect('127.0.0.1').replace('PORT', String(port)));
    expect(local.stdout).not.toContain('connected');
    expect(local.outcome.error?.ename).toBe('ConnectionRefusedError');
    expect(local.outcome.error?.evalue).toContain('the network is off in this sandbox');
    expect(local.outcome.error?.traceback.at(-1)).toContain('--allow-network');
    expect(connections).toBe(0);
    const remote = await run(k, connect('192.0.2.1').replace('PORT', '80'));
    expect(remote.outcome.error?.evalue).toMatch(/Network is unreachable[\s\S]*network is off/);
    const name = await run(k, 'import socket\nsocket.getaddrinfo("example.com", 80)');
    expect(name.outcome.error?.evalue).toContain('network is off');
  });

  it('is off for JavaScript cells too', async () => {
    const k = await sandboxed({}, freshDir('netjs'), 'js');
    const r = await run(
      k,
      `await new Promise((resolve, reject) => require('node:net').connect(${port}, '127.0.0.1').on('connect', resolve).on('error', reject))`,
    );
    expect(r.outcome.error?.evalue).toMatch(/ECONNREFUSED[\s\S]*network is off/);
    expect(connections).toBe(0);
  });

  it('--allow-network opens the network and nothing else', async () => {
    const k = await sandboxed({ allowNetwork: true }, freshDir('allow'));
    const r = await run(k, connect('127.0.0.1').replace('PORT', String(port)));
    expect(r.stdout).toBe('connected\n');
    await waitFor(() => connections >= 1, 60_000, 'the server to see the connection');
    expect(connections).toBe(1);
    const writes = await run(k, tryWrites(['/etc/omp-sbx-x']));
    expect(JSON.parse(writes.stdout)).toEqual({ '/etc/omp-sbx-x': 'Read-only file system' });
  });
});

describe('sandbox: files', () => {
  it('workspace-write: the cwd and $TMPDIR are writable; /etc, ~ and other directories are not, with a clear error', async () => {
    const cwd = freshDir('cwd');
    const outside = freshDir('outside');
    const k = await sandboxed({}, cwd);
    const tmp = (await run(k, 'import os\nprint(os.environ["TMPDIR"])')).stdout.trim();
    expect(tmp.startsWith(join(realpathSync(tmpdir()), 'omp-eval-sandbox-'))).toBe(true);
    const ok = await run(k, tryWrites(['in-cwd.txt', join(tmp, 'in-tmp.txt')]));
    expect(Object.values(JSON.parse(ok.stdout))).toEqual(['written', 'written']);
    expect(readFileSync(join(cwd, 'in-cwd.txt'), 'utf8')).toBe('x');
    const denied = ['/etc/omp-sbx-x', join(homedir(), 'omp-sbx-x'), join(outside, 'x')];
    const refused = await run(k, tryWrites(denied));
    expect(Object.values(JSON.parse(refused.stdout))).toEqual(Array(3).fill('Read-only file system'));
    expect(existsSync(join(outside, 'x'))).toBe(false);
    const error = (await run(k, `open(${JSON.stringify(join(outside, 'x'))}, "w")`)).outcome.error;
    expect(error?.evalue).toContain(
      `lets cells write only in the working directory (${cwd}), $TMPDIR (${tmp})`,
    );
    expect(error?.evalue).toContain('--add-writable-root');
    await k.shutdown();
    expect(existsSync(tmp)).toBe(false); // the kernel's temp dir goes with it
  });

  it('--add-writable-root opens exactly the directories it names', async () => {
    const [cwd, root, other] = [freshDir('cwd'), freshDir('root'), freshDir('other')];
    const k = await sandboxed({ writableRoots: [root] }, cwd);
    const r = await run(k, tryWrites([join(root, 'x'), join(other, 'x')]));
    expect(JSON.parse(r.stdout)).toEqual({
      [join(root, 'x')]: 'written',
      [join(other, 'x')]: 'Read-only file system',
    });
    expect(readFileSync(join(root, 'x'), 'utf8')).toBe('x');
  });

  it('read-only refuses writes in the cwd (JavaScript too), and $TMPDIR stays writable', async () => {
    const cwd = freshDir('ro');
    const k = await sandboxed({ mode: 'read-only' }, cwd);
    const r = await run(k, tryWrites(['in-cwd.txt']));
    expect(JSON.parse(r.stdout)).toEqual({ 'in-cwd.txt': 'Read-only file system' });
    const error = (await run(k, 'open("in-cwd.txt", "w")')).outcome.error;
    expect(error?.evalue).toMatch(/sandbox \(read-only\) lets cells write only in \$TMPDIR/);
    expect((await run(k, tryWrites(['/dev/null']))).stdout).toContain('written');
    const tmpWrite = await run(
      k,
      'import os, tempfile\nwith tempfile.NamedTemporaryFile() as f: f.write(b"x")\nprint("ok")',
    );
    expect(tmpWrite.stdout).toBe('ok\n');
    const js = await sandboxed({ mode: 'read-only' }, cwd, 'js');
    const jsError = (await run(js, 'require("node:fs").writeFileSync("in-cwd.js.txt", "x")')).outcome.error;
    expect(jsError?.evalue).toMatch(/EROFS[\s\S]*sandbox \(read-only\)/);
    expect(existsSync(join(cwd, 'in-cwd.txt'))).toBe(false);
  });
});

describe('sandbox: processes', () => {
  /** Python printing what /proc shows: each process's command, and whether the host's environ reads. */
  const probe = (hostPid: number) =>
    `import json, os\ndef read(path):\n    try:\n        with open(path, "rb") as f:\n            return f.read()\n    except OSError:\n        return None\npids = [p for p in os.listdir("/proc") if p.isdigit()]\ncmds = {p: (read(f"/proc/{p}/cmdline") or b"").split(b"\\0")[0].decode() for p in pids}\ntry:\n    open("/proc/${hostPid}/environ", "rb").read()\n    environ = "read"\nexcept OSError as e:\n    environ = type(e).__name__\nsecret = any(b"omp-sbx-secret" in (read(f"/proc/{p}/environ") or b"") for p in pids)\nprint(json.dumps({"cmds": cmds, "environ": environ, "secret": secret}))`;

  it("a cell sees only the sandbox's processes, and no host environment", async () => {
    // A process of the host's user with a secret in its environment (what a host's own environ
    // or a guard's would show; neither the engine's guard nor its kernels carry the host's now).
    const holder = spawn('sleep', ['1000'], {
      env: { ...process.env, OMP_SBX_TEST_TOKEN: 'omp-sbx-secret' },
    });
    await waitFor(
      () => {
        try {
          return readFileSync(`/proc/${holder.pid}/environ`, 'utf8').includes('omp-sbx-secret');
        } catch {
          return false;
        }
      },
      60_000,
      'the secret holder',
    );
    try {
      // Without a sandbox the host is in view (the control).
      const open = await sandboxed({ mode: 'off' }, freshDir('proc'));
      const seen = JSON.parse((await run(open, probe(process.pid))).stdout);
      expect(seen).toMatchObject({ environ: 'read', secret: true });
      const k = await sandboxed({}, freshDir('proc'));
      const inside = JSON.parse((await run(k, probe(process.pid))).stdout);
      expect(inside.environ).toBe('FileNotFoundError');
      expect(inside.secret).toBe(false);
      expect(Object.values(inside.cmds).every((c) => /bwrap|python/.test(c as string))).toBe(true);
      expect(Object.keys(inside.cmds).length).toBeLessThanOrEqual(3); // bwrap's init, the runner, maybe a thread
    } finally {
      holder.kill('SIGKILL');
    }
  });

  it('interrupts reach the runner in its PID namespace, in both languages', async () => {
    const k = await sandboxed({}, freshDir('int'));
    const py = await interruptAfterReady(k, 'print("ready", flush=True)\nwhile True: pass');
    expect(py.outcome).toMatchObject({ cancelled: true, killed: false });
    expect(py.outcome.error?.ename).toBe('KeyboardInterrupt');
    expect((await run(k, '1 + 1')).result?.['text/plain']).toBe('2');
    const js = await sandboxed({}, freshDir('intjs'), 'js');
    const jsOut = await interruptAfterReady(js, 'console.log("ready"); for (;;) {}');
    expect(jsOut.outcome).toMatchObject({ cancelled: true, killed: false });
  });

  it('an unanswered interrupt escalates to a kill of the whole sandbox', async () => {
    const k = await startKernel({ cwd: freshDir('esc'), sandbox: WS, interruptEscalationMs: 500 });
    const { outcome } = await interruptAfterReady(
      k,
      'import signal, time\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nprint("ready", flush=True)\nwhile True: time.sleep(0.05)',
    );
    expect(outcome).toMatchObject({ cancelled: true, killed: true });
    expect(k.state).toBe('dead');
  });

  it('shell commands run inside the sandbox, and input() works', async () => {
    const k = await sandboxed({}, freshDir('shell'));
    const r = await run(k, '!cat /proc/1/cmdline | tr "\\\\0" " "; echo; touch /etc/omp-sbx-x');
    expect(r.stdout).toMatch(/^\S*bwrap /);
    expect(r.stdout + r.stderr).toContain('Read-only file system');
    const asked = await run(k, 'print(input("name? "))', {
      allowStdin: true,
      onFrame: (f) => {
        if (f.type === 'input_request') k.sendInput('sandboxed');
      },
    });
    expect(asked.stdout).toBe('sandboxed\n');
  });
});
