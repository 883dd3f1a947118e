/**
 * The share socket (src/modes/share/publisher.ts, client.ts) in process, over real Unix sockets:
 * the secret is required, sessions are listed and followed (history, then live), stale sockets
 * are swept, and the server's end reaches its followers.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { discover, pickSession, ShareConnection } from '../../src/modes/share/client.js';
import { FeedRegistry } from '../../src/modes/share/feed.js';
import type { ServerMessage } from '../../src/modes/share/protocol.js';
import { type Publisher, publishSessions } from '../../src/modes/share/publisher.js';
import { readSecret } from '../../src/modes/share/runtimeDir.js';
import { waitFor } from '../helpers/kernel.js';
import { cellResult } from '../helpers/results.js';

const publishers: Publisher[] = [];
afterEach(async () => {
  await Promise.all(publishers.splice(0).map((p) => p.close('test over')));
});

async function start() {
  const runtime = mkdtempSync(join(tmpdir(), 'omp-share-rt-'));
  const dir = join(runtime, 'omp-eval');
  const registry = new FeedRegistry();
  const publisher = await publishSessions({ dir, registry });
  publishers.push(publisher);
  return { runtime, dir, registry, publisher };
}

/** What the server answers a raw connection that sends `lines`, up to its close. */
function rawExchange(path: string, lines: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(path);
    let got = '';
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => {
      got += d;
    });
    socket.on('connect', () => socket.write(lines.join('')));
    socket.on('close', () => resolve(got));
    socket.on('error', reject);
  });
}

function ran(registry: FeedRegistry, name: string) {
  const feed = registry.open(name, '/work', () => ({ client: 'agent-x', languages: ['py'] }));
  const call = feed.callStarted([{ index: 0, language: 'py', code: 'print(1)', title: 'one' }]);
  call.onEvent(0, { kind: 'started' });
  call.onEvent(0, { kind: 'stdout', text: '1\n' });
  call.cellDone(cellResult({ executionCount: 1, durationMs: 5 }));
  call.end();
  return feed;
}

describe('the share socket', () => {
  it('refuses a wrong secret, and a first message that is no hello', async () => {
    const { publisher } = await start();
    const wrong = await rawExchange(publisher.path, [
      `${JSON.stringify({ t: 'hello', v: 1, secret: 'x'.repeat(64) })}\n`,
    ]);
    expect(JSON.parse(wrong)).toEqual({
      t: 'refused',
      message: "wrong secret: only the server's own user may follow its sessions",
    });
    const list = await rawExchange(publisher.path, ['{"t":"list"}\n']);
    expect(JSON.parse(list)).toEqual({ t: 'refused', message: 'the first message must be hello' });
    const junk = await rawExchange(publisher.path, ['nonsense\n']);
    expect(JSON.parse(junk)).toEqual({ t: 'refused', message: 'a line that is not JSON' });
  });

  it('lists sessions and follows one: its history, then its calls live, then its end', async () => {
    const { dir, registry, publisher, runtime } = await start();
    const feed = ran(registry, 'default');
    const found = await discover({ XDG_RUNTIME_DIR: runtime });
    expect(found.servers).toHaveLength(1);
    expect(found.servers[0]?.sessions).toMatchObject([
      {
        id: `${process.pid}/1`,
        name: 'default',
        client: 'agent-x',
        cwd: '/work',
        cellsRun: 1,
        calls: 1,
        busy: false,
      },
    ]);
    const picked = pickSession(found.servers, 'default');
    expect('session' in picked && picked.session.id).toBe(`${process.pid}/1`);

    const connection = await ShareConnection.open(publisher.path, readSecret(dir));
    connection.send({ t: 'subscribe', session: 'nope' });
    await expect(connection.next(['subscribed'])).rejects.toThrow(/no session nope/);
    connection.send({ t: 'subscribe', session: feed.id, history: 5 });
    await connection.next(['subscribed']);
    const seen: ServerMessage[] = [];
    let closed: string | undefined;
    connection.listen(
      (m) => seen.push(m),
      (why) => {
        closed = why;
      },
    );
    await waitFor(() => seen.some((m) => m.t === 'callEnd'), 10_000, 'the history');
    expect(seen.map((m) => m.t)).toEqual(['call', 'output', 'output', 'cell', 'callEnd']);
    expect(seen[0]).toMatchObject({
      call: 1,
      history: true,
      client: 'agent-x',
      cells: [{ code: 'print(1)', title: 'one' }],
    });
    expect(seen[3]).toMatchObject({ t: 'cell', cell: 0, status: 'ok', started: true, durationMs: 5 });

    const live = feed.callStarted([{ index: 0, language: 'js', code: 'x' }]);
    live.onEvent(0, { kind: 'stdout', text: 'live\n' });
    await waitFor(
      () =>
        seen.some(
          (m) => m.t === 'output' && 'event' in m && m.event.kind === 'stdout' && m.event.text === 'live\n',
        ),
      10_000,
      'the live output',
    );
    expect(seen.at(-2)).toMatchObject({ t: 'call', call: 2, cells: [{ language: 'js', code: 'x' }] });
    expect(seen.at(-2)).not.toHaveProperty('history');
    live.end();

    await publisher.close("the agent's omp-eval mcp server ended");
    await waitFor(() => closed !== undefined, 10_000, 'the close');
    expect(seen.at(-1)).toEqual({ t: 'ended', reason: "the agent's omp-eval mcp server ended" });
    expect(closed).toBe("the agent's omp-eval mcp server ended");
    expect(existsSync(publisher.path)).toBe(false);
  });

  it('sweeps a socket nobody answers on, and a client skips it', async () => {
    const runtime = mkdtempSync(join(tmpdir(), 'omp-share-rt-'));
    const dir = join(runtime, 'omp-eval');
    const first = await publishSessions({ dir, registry: new FeedRegistry() });
    await first.close('gone');
    // A server killed outright leaves its socket behind.
    const stale = join(dir, 'mcp-999999.sock');
    const killed = spawnSync(process.execPath, [
      '-e',
      `require('net').createServer().listen(${JSON.stringify(stale)}, () => process.kill(process.pid, 'SIGKILL'))`,
    ]);
    expect(killed.signal).toBe('SIGKILL');
    expect(existsSync(stale)).toBe(true);
    expect((await discover({ XDG_RUNTIME_DIR: runtime })).servers).toEqual([]);
    expect(existsSync(stale)).toBe(false);
    const again = spawnSync(process.execPath, [
      '-e',
      `require('net').createServer().listen(${JSON.stringify(stale)}, () => process.kill(process.pid, 'SIGKILL'))`,
    ]);
    expect(again.signal).toBe('SIGKILL');
    const publisher = await publishSessions({ dir, registry: new FeedRegistry() });
    publishers.push(publisher);
    expect(existsSync(stale)).toBe(false);
  });

  it('says which session to name when there are several, or none', () => {
    const server = (pid: number, names: string[]) => ({
      pid,
      path: `/x/${pid}`,
      sessions: names.map((name, i) => ({
        id: `${pid}/${i + 1}`,
        name,
        cwd: '/',
        languages: [],
        calls: 0,
        cellsRun: 0,
        idleMs: 0,
        busy: false,
        transport: 'stdio',
      })),
    });
    expect(pickSession([], undefined)).toEqual({ problem: 'no omp-eval mcp server of yours is running' });
    expect(pickSession([server(1, [])], undefined)).toMatchObject({ problem: /no session to follow yet/ });
    const two = [server(1, ['default']), server(2, ['default'])];
    expect(pickSession(two, undefined)).toMatchObject({ problem: /2 sessions: name one/ });
    expect(pickSession(two, 'default')).toMatchObject({ problem: /2 sessions are named "default"/ });
    expect(pickSession(two, '2/1')).toMatchObject({ session: { id: '2/1' } });
    expect(pickSession(two, 'other')).toMatchObject({
      problem: 'no session "other" (omp-eval attach --list shows them)',
    });
  });
});
