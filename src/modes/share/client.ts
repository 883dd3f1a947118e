/**
 * The follower's side of the share socket: finds the user's live `omp-eval mcp` servers in the
 * share directory, says hello with the secret, lists their sessions and follows one.
 */
import { readdir, unlink } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import {
  type ClientMessage,
  encode,
  LineReader,
  PROTOCOL_VERSION,
  ProtocolError,
  parseServerMessage,
  type ServerMessage,
  type SessionInfo,
} from './protocol.js';
import { SOCKET_NAME } from './publisher.js';
import { privateDirProblem, readSecret, ShareDirError, shareDirPath } from './runtimeDir.js';

/** How long a server has to answer hello or list. */
const ANSWER_MS = 5000;

export class ShareConnectionError extends Error {
  override name = 'ShareConnectionError';
}

/** One connection to a server, past hello. */
export class ShareConnection {
  private listener?: (message: ServerMessage) => void;
  private readonly waiting: ServerMessage[] = [];
  private closedWith?: string;
  private onClose?: (why: string) => void;

  private constructor(
    private readonly socket: Socket,
    readonly pid: number,
  ) {}

  /** Connects to the socket at `path` and presents `secret`; rejects with the server's reason. */
  static open(path: string, secret: string): Promise<ShareConnection> {
    return new Promise((resolve, reject) => {
      const socket = connect(path);
      let connection: ShareConnection | undefined;
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new ShareConnectionError(`${path}: no answer`));
      }, ANSWER_MS);
      const reader = new LineReader((line) => {
        let message: ServerMessage;
        try {
          message = parseServerMessage(line);
        } catch {
          return; // (a newer server's message this one does not know)
        }
        if (connection) return connection.deliver(message);
        clearTimeout(timer);
        if (message.t === 'welcome') {
          connection = new ShareConnection(socket, message.pid);
          resolve(connection);
        } else {
          socket.destroy();
          reject(
            new ShareConnectionError(
              message.t === 'refused' ? `refused: ${message.message}` : `unexpected answer ${message.t}`,
            ),
          );
        }
      });
      socket.on('data', (chunk) => {
        try {
          reader.push(chunk);
        } catch (err) {
          if (err instanceof ProtocolError) socket.destroy(err);
        }
      });
      socket.once('connect', () => {
        socket.write(encode({ t: 'hello', v: PROTOCOL_VERSION, secret }));
      });
      socket.on('error', (err: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        if (!connection) reject(err);
      });
      socket.on('close', () => {
        clearTimeout(timer);
        if (!connection) reject(new ShareConnectionError(`${path}: closed before it answered`));
        else connection.closed('the connection to the agent\u2019s server was lost (the server ended)');
      });
    });
  }

  private deliver(message: ServerMessage): void {
    if (message.t === 'ended') this.closedWith ??= message.reason;
    if (this.listener) this.listener(message);
    else this.waiting.push(message);
  }

  private closed(fallback: string): void {
    const why = this.closedWith ?? fallback;
    this.closedWith = why;
    this.onClose?.(why);
  }

  /** Every message from now on (those that came before, first). */
  listen(listener: (message: ServerMessage) => void, onClose: (why: string) => void): void {
    this.listener = listener;
    this.onClose = onClose;
    for (const message of this.waiting.splice(0)) listener(message);
    if (this.socket.destroyed) this.closed('the connection to the agent\u2019s server was lost');
  }

  send(message: ClientMessage): void {
    if (!this.socket.destroyed) this.socket.write(encode(message));
  }

  /** The next message of one of `types` (an `error` rejects). */
  next<T extends ServerMessage['t']>(types: T[]): Promise<Extract<ServerMessage, { t: T }>> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new ShareConnectionError('no answer from the server')),
        ANSWER_MS,
      );
      const take = (message: ServerMessage) => {
        if (message.t === 'error' || (types as string[]).includes(message.t)) {
          clearTimeout(timer);
          this.listener = undefined;
          if (message.t === 'error') reject(new ShareConnectionError(message.message));
          else resolve(message as Extract<ServerMessage, { t: T }>);
        }
      };
      const queued = this.waiting.findIndex((m) => m.t === 'error' || (types as string[]).includes(m.t));
      if (queued !== -1) {
        const [message] = this.waiting.splice(queued, 1);
        take(message as ServerMessage);
        return;
      }
      this.listener = take;
      this.onClose = () => {
        clearTimeout(timer);
        reject(new ShareConnectionError('the server closed the connection'));
      };
    });
  }

  close(): void {
    this.onClose = undefined;
    this.socket.end();
    this.socket.destroy();
  }
}

export interface LiveServer {
  pid: number;
  path: string;
  sessions: SessionInfo[];
}

export interface Discovery {
  dir: string;
  servers: LiveServer[];
  secret?: string;
  /** Servers that answered but refused (a reason each). */
  problems: string[];
}

/** The user's live servers and their sessions; sockets nobody answers on are removed. */
export async function discover(env: NodeJS.ProcessEnv = process.env): Promise<Discovery> {
  const dir = shareDirPath(env);
  const problem = privateDirProblem(dir);
  if (problem === 'missing') return { dir, servers: [], problems: [] };
  if (problem) throw new ShareDirError(`${dir} ${problem}; refusing to use it (remove it, or fix it)`);
  const names = (await readdir(dir)).filter((n) => SOCKET_NAME.test(n));
  if (!names.length) return { dir, servers: [], problems: [] };
  const secret = readSecret(dir);
  const problems: string[] = [];
  const found = await Promise.all(
    names.map(async (name): Promise<LiveServer | undefined> => {
      const path = join(dir, name);
      let connection: ShareConnection;
      try {
        connection = await ShareConnection.open(path, secret);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'ECONNREFUSED' || code === 'ENOENT') await unlink(path).catch(() => {});
        else problems.push(`${path}: ${(err as Error).message}`);
        return undefined;
      }
      try {
        connection.send({ t: 'list' });
        const { sessions } = await connection.next(['sessions']);
        return { pid: connection.pid, path, sessions };
      } catch (err) {
        problems.push(`${path}: ${(err as Error).message}`);
        return undefined;
      } finally {
        connection.close();
      }
    }),
  );
  const servers = found.filter((s): s is LiveServer => s !== undefined).sort((a, b) => a.pid - b.pid);
  return { dir, servers, secret, problems };
}

/** The session `wanted` names (its id `pid/n`, or its name when only one session has it), or why none. */
export function pickSession(
  servers: LiveServer[],
  wanted: string | undefined,
): { server: LiveServer; session: SessionInfo } | { problem: string } {
  const all = servers.flatMap((server) => server.sessions.map((session) => ({ server, session })));
  if (!all.length)
    return {
      problem: servers.length
        ? 'no session to follow yet: an agent\u2019s session starts with its first eval call'
        : 'no omp-eval mcp server of yours is running',
    };
  if (wanted === undefined) {
    if (all.length === 1) return all[0] as { server: LiveServer; session: SessionInfo };
    return {
      problem: `${all.length} sessions: name one (omp-eval attach ID; omp-eval attach --list shows them)`,
    };
  }
  const byId = all.find((s) => s.session.id === wanted);
  if (byId) return byId;
  const byName = all.filter((s) => s.session.name === wanted);
  if (byName.length === 1) return byName[0] as { server: LiveServer; session: SessionInfo };
  if (byName.length > 1)
    return {
      problem: `${byName.length} sessions are named "${wanted}": name one by its ID (omp-eval attach --list)`,
    };
  return { problem: `no session "${wanted}" (omp-eval attach --list shows them)` };
}
