/**
 * Publishes this `omp-eval mcp` server's sessions on a Unix socket in the user's private share
 * directory (runtimeDir.ts), for `omp-eval attach`. A connection must present the directory's
 * secret first; then it may list the sessions and follow one. The socket is removed when the
 * server ends; sockets nobody answers on (a server that was killed) are removed at start.
 */
import { unlinkSync } from 'node:fs';
import { chmod, readdir, unlink } from 'node:fs/promises';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { type FeedRegistry, feeds, type SessionFeed } from './feed.js';
import {
  encode,
  LineReader,
  PROTOCOL_VERSION,
  ProtocolError,
  parseClientMessage,
  type ServerMessage,
} from './protocol.js';
import { openShareDir, sameSecret, shareDirPath, shareSecret } from './runtimeDir.js';

/** What a follower's socket may hold unsent before its output events are dropped (never the agent's wait). */
const MAX_UNSENT = 8 * 1024 * 1024;
/** How long a connection has to present the secret. */
const HELLO_MS = 5000;
/** A socket's name: the server's pid. */
export const SOCKET_NAME = /^mcp-(\d+)\.sock$/;

export interface Publisher {
  readonly path: string;
  /** Tells every follower the server is ending, closes the socket and removes it. */
  close(reason: string): Promise<void>;
}

export interface PublishOptions {
  env?: NodeJS.ProcessEnv;
  /** The share directory (default: the user's, from the environment). */
  dir?: string;
  registry?: FeedRegistry;
}

/** Starts publishing; throws ShareDirError when the share directory is not private. */
export async function publishSessions(opts: PublishOptions = {}): Promise<Publisher> {
  const dir = openShareDir(opts.dir ?? shareDirPath(opts.env));
  const secret = shareSecret(dir);
  const registry = opts.registry ?? feeds;
  await sweepStale(dir);
  const path = join(dir, `mcp-${process.pid}.sock`);
  await unlink(path).catch(() => {}); // (a socket of an earlier process with this pid: nobody answers on it)
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    serveFollower(socket, secret, registry);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.unref(); // (the MCP transport holds the process, not its followers)
  await chmod(path, 0o600).catch(() => {});
  const removeNow = () => {
    try {
      unlinkSync(path);
    } catch {
      // already gone
    }
  };
  process.once('exit', removeNow);
  let closing: Promise<void> | undefined;
  return {
    path,
    close(reason) {
      closing ??= (async () => {
        process.off('exit', removeNow);
        const gone = new Promise<void>((resolve) => server.close(() => resolve()));
        removeNow();
        for (const socket of sockets) socket.end(encode({ t: 'ended', reason }));
        registry.endAll(reason);
        // (a follower that reads no more is not waited for)
        const timer = setTimeout(() => {
          for (const socket of sockets) socket.destroy();
        }, 1000);
        await gone;
        clearTimeout(timer);
      })();
      return closing;
    },
  };
}

/** Removes the sockets in `dir` that nobody answers on. */
async function sweepStale(dir: string): Promise<void> {
  const names = await readdir(dir).catch(() => [] as string[]);
  await Promise.all(
    names
      .filter((name) => SOCKET_NAME.test(name))
      .map(async (name) => {
        const path = join(dir, name);
        if ((await probe(path)) === 'stale') await unlink(path).catch(() => {});
      }),
  );
}

/** Whether a server answers on the socket at `path` (`stale`: refused, nobody listens). */
function probe(path: string, timeoutMs = 1000): Promise<'live' | 'stale' | 'unknown'> {
  return new Promise((resolve) => {
    const socket = connect(path);
    const done = (answer: 'live' | 'stale' | 'unknown') => {
      clearTimeout(timer);
      socket.destroy();
      resolve(answer);
    };
    const timer = setTimeout(() => done('unknown'), timeoutMs);
    socket.once('connect', () => done('live'));
    socket.once('error', (err: NodeJS.ErrnoException) =>
      done(err.code === 'ECONNREFUSED' || err.code === 'ENOENT' ? 'stale' : 'unknown'),
    );
  });
}

/** One follower's connection: hello (the secret), then list and subscribe. */
function serveFollower(socket: Socket, secret: string, registry: FeedRegistry): void {
  let welcomed = false;
  let unsubscribe: (() => void) | undefined;
  let following: SessionFeed | undefined;
  let dropped = 0;
  const send = (message: ServerMessage) => {
    if (socket.destroyed || !socket.writable) return;
    // A follower that cannot keep up misses output, never the cells' ends: the agent never waits.
    if (message.t === 'output' && socket.writableLength > MAX_UNSENT) {
      dropped++;
      return;
    }
    if (dropped) {
      const text = `(${dropped} output events were not shown: this notebook fell behind the agent's output)`;
      dropped = 0;
      socket.write(encode({ t: 'notice', text }));
    }
    socket.write(encode(message));
  };
  const refuse = (message: string) => {
    socket.end(encode({ t: 'refused', message }));
  };
  const hello = setTimeout(() => refuse('no hello in time'), HELLO_MS);
  const reader = new LineReader((line) => {
    let message: ReturnType<typeof parseClientMessage>;
    try {
      message = parseClientMessage(line);
    } catch (err) {
      if (!welcomed) return refuse((err as Error).message);
      return send({ t: 'error', message: (err as Error).message });
    }
    if (!welcomed) {
      clearTimeout(hello);
      if (message.t !== 'hello') return refuse('the first message must be hello');
      if (!sameSecret(message.secret, secret))
        return refuse("wrong secret: only the server's own user may follow its sessions");
      if (message.v !== PROTOCOL_VERSION)
        return refuse(`protocol version ${message.v} is not ${PROTOCOL_VERSION}: use the same omp-eval`);
      welcomed = true;
      send({ t: 'welcome', v: PROTOCOL_VERSION, pid: process.pid });
      return;
    }
    switch (message.t) {
      case 'hello':
        return send({ t: 'error', message: 'hello was already said' });
      case 'list':
        return send({ t: 'sessions', sessions: registry.all().map((f) => f.info()) });
      case 'subscribe': {
        const feed = registry.get(message.session);
        if (!feed) return send({ t: 'error', message: `no session ${message.session} in this server` });
        if (unsubscribe) return send({ t: 'error', message: 'this connection already follows a session' });
        send({ t: 'subscribed', session: feed.info() });
        following = feed;
        unsubscribe = feed.subscribe(send, message.history);
        return;
      }
      case 'run':
      case 'interrupt': {
        const controller = following?.controller;
        if (!following || following.ended || !controller)
          return send({ t: 'error', message: 'this connection follows no session that takes cells' });
        if (message.t === 'interrupt') {
          if (!controller.interrupt()) send({ t: 'notice', text: 'no cell is running' });
          return;
        }
        controller.run(message.code, message.ref).catch((err: Error) => {
          send({ t: 'error', message: `the cell could not run: ${err.message}` });
        });
        return;
      }
    }
  });
  socket.on('data', (chunk) => {
    try {
      reader.push(chunk);
    } catch (err) {
      if (err instanceof ProtocolError) refuse(err.message);
    }
  });
  socket.on('error', () => {}); // (a follower that went away: its close follows)
  socket.on('close', () => {
    clearTimeout(hello);
    unsubscribe?.();
  });
}

/**
 * Publishing as `omp-eval mcp` starts it: a share directory that is not private is a warning on
 * `err` (the server serves its client all the same, unfollowed). Resolves with the publisher.
 */
export async function shareSessions(
  env: NodeJS.ProcessEnv,
  err: NodeJS.WritableStream,
  transport: 'stdio' | 'http',
): Promise<Publisher | undefined> {
  feeds.transport = transport;
  try {
    return await publishSessions({ env });
  } catch (error) {
    err.write(
      `omp-eval mcp: warning: its sessions cannot be followed (omp-eval attach): ${(error as Error).message}\n`,
    );
    return undefined;
  }
}
