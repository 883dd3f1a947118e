/**
 * Follow an agent (issue 41): another user cannot reach a server's sessions. CI runs this tier as
 * root: as root the test tries as a user it makes (and removes), with the share
 * directory's parent open to everyone so that only the share directory's own mode stands in the
 * way. As another user, the nearest check: the directory is 0700 and a hello without the secret is
 * refused.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, lstatSync, mkdtempSync, readdirSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.js';
import { deadlineIn } from '../helpers/kernel.js';
import { evalCell, startStdio, stopAll } from '../helpers/mcp.js';

afterAll(stopAll);

/** What a hello with `secret` gets from the socket at `path`. */
function hello(path: string, secret: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(path);
    let got = '';
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => {
      got += d;
    });
    socket.on('connect', () => socket.write(`${JSON.stringify({ t: 'hello', v: 1, secret })}\n`));
    socket.on('close', () => resolve(got));
    socket.on('error', reject);
  });
}

describe('omp-eval attach: only the server’s user', { timeout: 120_000 }, () => {
  it('another user can neither reach the socket nor read the secret', async () => {
    const runtime = mkdtempSync(join(tmpdir(), 'omp-attach-users-'));
    chmodSync(runtime, 0o755); // (only the share directory inside it is private)
    const workspace = mkdtempSync(join(tmpdir(), 'omp-attach-users-ws-'));
    const server = await startStdio({
      args: ['--python', '/usr/bin/python3', 'mcp'],
      env: { XDG_RUNTIME_DIR: runtime },
      cwd: workspace,
    });
    await evalCell(server.client, '1 + 1');
    const dir = join(runtime, 'omp-eval');
    let socket: string | undefined;
    for (const until = deadlineIn(30_000); !socket; ) {
      socket = readdirSync(dir).find((n) => /^mcp-\d+\.sock$/.test(n));
      if (!socket && Date.now() > until) throw new Error('no socket published');
      if (!socket) await new Promise((r) => setTimeout(r, 50));
    }
    const path = join(dir, socket);
    expect(lstatSync(dir).mode & 0o777).toBe(0o700);
    expect(lstatSync(join(dir, 'secret')).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await hello(path, 'not the secret'))).toMatchObject({ t: 'refused' });
    // The server's own user lists it.
    expect((await cli(['attach', '--list'], { env: { XDG_RUNTIME_DIR: runtime } })).stdout).toContain(
      'default',
    );
    if (process.getuid?.() !== 0) return; // (switching users needs root: CI runs this tier as root)
    const probe = `
      const net = require('node:net'), fs = require('node:fs');
      let secret; try { fs.readFileSync(${JSON.stringify(join(dir, 'secret'))}); secret = 'read'; } catch (e) { secret = e.code; }
      const s = net.connect(${JSON.stringify(path)});
      s.on('connect', () => { console.log(JSON.stringify({ secret, socket: 'connected' })); s.destroy(); });
      s.on('error', (e) => console.log(JSON.stringify({ secret, socket: e.code })));`;
    // A user of the test's own (a fresh CI machine has no omp-ci before .ci/run's last steps),
    // removed after; and a node it may run (CI's Node 22 lies in a folder only root can enter).
    const user = `ompattach${process.pid % 100000}`;
    spawnSync('useradd', ['--no-create-home', '--shell', '/usr/sbin/nologin', user]);
    try {
      const runs = (node: string) => spawnSync('runuser', ['-u', user, '--', node, '-e', '0']).status === 0;
      const node = [process.execPath, '/usr/local/bin/node', '/usr/bin/node'].find(runs);
      expect(node, 'a node binary the other user may run').toBeDefined();
      const other = spawnSync('runuser', ['-u', user, '--', node as string, '-e', probe], {
        encoding: 'utf8',
      });
      expect(other.stderr).toBe('');
      expect(JSON.parse(other.stdout)).toEqual({ secret: 'EACCES', socket: 'EACCES' });
    } finally {
      spawnSync('userdel', [user]);
    }
  });
});
