/**
 * `omp-eval mcp --http HOST:PORT`: Streamable HTTP at /mcp on a loopback address only, behind a
 * bearer token. Each MCP session (Mcp-Session-Id) is a connection with kernels of its own, shut
 * down when the client deletes the session or leaves it idle past the idle timeout. Sessions count
 * toward the server's session cap from their initialize on; at the cap, a new one takes the place
 * of the longest idle session that holds no kernel (nothing is lost), or is refused.
 */
import { randomUUID, timingSafeEqual } from 'node:crypto';
import {
  createServer,
  type Server as HttpServer,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import { isIP } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { type ConnectionOptions, McpConnection } from './connection.js';
import { isModernMessage } from './eraRouter.js';
import { ServerCaps } from './limits.js';
import { serveModernHttp } from './modernHttp.js';
import { allowsBatches, batchRefusal, FIRST_MODERN_REVISION } from './versions.js';

// (the options are read before this module loads: it loads the HTTP transport and, with it, undici)
export { parseListenAddress } from './httpOptions.js';

const MCP_PATH = '/mcp';
/** Largest request body (cells of code). */
const MAX_BODY_BYTES = 16 * 1024 * 1024;
export interface HttpServeOptions extends ConnectionOptions {
  host: string;
  port: number;
  token: string;
  /** A session without requests for this long is closed and its kernels shut down. */
  idleTimeoutMs: number;
  /** Largest request body in bytes (default 16 MiB). */
  maxBodyBytes?: number;
}

interface HttpSession {
  connection: McpConnection;
  transport: StreamableHTTPServerTransport;
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  if (res.headersSent) return;
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}
const rpcError = (code: number, message: string) => ({ jsonrpc: '2.0', error: { code, message }, id: null });

/** A request body over the limit (answered 413). */
class BodyTooLarge extends Error {}

/**
 * The body as JSON. Past `limit` bytes the rest is read and dropped, not kept, and the promise
 * rejects with BodyTooLarge once it ended: the client, still sending, then reads a 413 instead
 * of a connection reset.
 */
function readBody(req: IncomingMessage, limit: number): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
      else chunks.length = 0;
    });
    req.on('end', () => {
      if (size > limit) {
        reject(new BodyTooLarge(`the request body is over ${limit} bytes (${size} bytes)`));
        return;
      }
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      } catch (err) {
        reject(new Error(`the request body is not JSON: ${(err as Error).message}`));
      }
    });
    req.on('error', reject);
  });
}

/**
 * Whether a browser page of this origin may call the server: only one served from loopback
 * (the MCP specification has servers validate Origin against DNS rebinding; a request without
 * Origin comes from no browser page and is fine).
 */
export function loopbackOrigin(origin: string): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false; // "null" (a sandboxed frame, a file) and anything else that is no URL
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return host === 'localhost' || host === '::1' || (isIP(host) === 4 && host.startsWith('127.'));
}

export class McpHttpServer {
  private readonly sessions = new Map<string, HttpSession>();
  private readonly http: HttpServer;
  private sweeper?: NodeJS.Timeout;
  private readonly token: Buffer;
  private allowedHosts = new Set<string>();
  private readonly opts: HttpServeOptions & { caps: ServerCaps };
  /**
   * The one connection of every 2026-07-28 request (no Mcp-Session-Id in that revision): its
   * kernels are behind the `session` handle the calls name. Opened at the first such request.
   */
  private modern?: { connection: McpConnection; serve: ReturnType<typeof serveModernHttp> };

  constructor(opts: HttpServeOptions) {
    const caps =
      opts.caps ?? new ServerCaps(opts.settings['mcp.maxSessions'], opts.settings['mcp.maxKernels']);
    this.opts = { ...opts, caps };
    this.token = Buffer.from(opts.token);
    this.http = createServer((req, res) => {
      this.handle(req, res).catch((err: Error) => sendJson(res, 500, rpcError(-32603, err.message)));
    });
  }

  /** Listens; resolves with the URL clients use. */
  async listen(): Promise<string> {
    await new Promise<void>((resolve, reject) => {
      this.http.once('error', reject);
      this.http.listen(this.opts.port, this.opts.host, () => resolve());
    });
    const { port } = this.http.address() as { port: number };
    const host = this.opts.host.includes(':') ? `[${this.opts.host}]` : this.opts.host;
    this.allowedHosts = new Set([`${host}:${port}`, `localhost:${port}`].map((h) => h.toLowerCase()));
    const every = Math.min(30_000, Math.max(100, this.opts.idleTimeoutMs / 4));
    this.sweeper = setInterval(() => this.closeIdle(), every);
    this.sweeper.unref();
    return `http://${host}:${port}${MCP_PATH}`;
  }

  get sessionCount(): number {
    return this.sessions.size;
  }

  private authorized(req: IncomingMessage): boolean {
    const header = req.headers.authorization ?? '';
    const match = /^Bearer\s+(.+)$/i.exec(header.trim());
    if (!match) return false;
    const given = Buffer.from(match[1] as string);
    return given.length === this.token.length && timingSafeEqual(given, this.token);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== MCP_PATH) return sendJson(res, 404, { error: `not found: the MCP endpoint is ${MCP_PATH}` });
    // A page in a browser may reach a loopback port under another name (DNS rebinding).
    // (host names are case-insensitive: LOCALHOST:8765 is the same server)
    if (!this.allowedHosts.has((req.headers.host ?? '').toLowerCase()))
      return sendJson(res, 403, rpcError(-32000, `Forbidden: unexpected Host header ${req.headers.host}`));
    const origin = req.headers.origin;
    if (origin !== undefined && !loopbackOrigin(origin))
      return sendJson(
        res,
        403,
        rpcError(
          -32000,
          `Forbidden: a page of origin ${origin} may not call this server (loopback origins only)`,
        ),
      );
    if (!this.authorized(req)) {
      return sendJson(
        res,
        401,
        rpcError(
          -32001,
          'Unauthorized: send the header "Authorization: Bearer <token>" with the token omp-eval mcp printed (or OMP_EVAL_MCP_TOKEN)',
        ),
        {
          'www-authenticate': 'Bearer realm="omp-eval"',
        },
      );
    }
    let body: unknown;
    if (req.method === 'POST') {
      try {
        body = await readBody(req, this.opts.maxBodyBytes ?? MAX_BODY_BYTES);
      } catch (err) {
        if (err instanceof BodyTooLarge)
          return sendJson(res, 413, rpcError(-32600, `Request too large: ${err.message}`));
        return sendJson(res, 400, rpcError(-32700, `Parse error: ${(err as Error).message}`));
      }
    }
    const id = req.headers['mcp-session-id'];
    if (id === undefined && req.method === 'POST' && isModernRequest(body)) {
      this.modern ??= this.openModern();
      this.modern.connection.lastActive = performance.now();
      return this.modern.serve(req, res, body);
    }
    if (typeof id === 'string') {
      const session = this.sessions.get(id);
      if (!session)
        return sendJson(
          res,
          404,
          rpcError(-32001, 'Session not found (it ended or timed out): initialize a new one'),
        );
      session.connection.lastActive = performance.now();
      // (the SDK's transport takes a batch whatever the revision: only 2025-03-26 has them)
      const version = session.connection.protocolVersion;
      if (Array.isArray(body) && !allowsBatches(version))
        return sendJson(res, 400, rpcError(-32600, batchRefusal(version)));
      return session.transport.handleRequest(req, res, body);
    }
    if (req.method !== 'POST' || !isInitializeRequest(body))
      return sendJson(
        res,
        400,
        rpcError(-32000, 'Bad Request: no Mcp-Session-Id header; start with an initialize request'),
      );
    const refused = this.makeRoom();
    if (refused) {
      const id = (body as { id?: string | number }).id ?? null;
      return sendJson(res, 503, { jsonrpc: '2.0', error: { code: -32000, message: refused }, id });
    }
    await this.openSession(req, res, body);
  }

  /**
   * Room for one more session under the cap: at the cap, the longest idle session without
   * kernels (and no call running) is closed; its client starts a new one on its next request,
   * as MCP clients do after a 404. Returns why there is no room, if there is none.
   */
  private makeRoom(): string | undefined {
    const caps = this.opts.caps;
    if (caps.sessionsInUse() < caps.maxSessions) return undefined;
    let oldest: [string, HttpSession] | undefined;
    for (const entry of this.sessions) {
      const { connection } = entry[1];
      if (connection.busy || connection.kernelCount() > 0) continue;
      if (!oldest || connection.lastActive < oldest[1].connection.lastActive) oldest = entry;
    }
    if (!oldest) return caps.newClientRefusal(Math.round(this.opts.idleTimeoutMs / 1000));
    const [id, { connection, transport }] = oldest;
    this.sessions.delete(id);
    void connection.close().finally(() => transport.close());
    return undefined;
  }

  private async openSession(req: IncomingMessage, res: ServerResponse, body: unknown) {
    const connection = new McpConnection(this.opts);
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        this.sessions.set(id, { connection, transport });
      },
    });
    transport.onclose = () => {
      const id = transport.sessionId;
      if (id) this.sessions.delete(id);
      void connection.close();
    };
    await connection.server.connect(transport);
    await transport.handleRequest(req, res, body);
    if (!transport.sessionId || !this.sessions.has(transport.sessionId)) await connection.close();
  }

  private openModern() {
    const connection = new McpConnection({ ...this.opts, revision: FIRST_MODERN_REVISION });
    return {
      connection,
      serve: serveModernHttp(connection, this.opts.maxBodyBytes ?? MAX_BODY_BYTES),
    };
  }

  /** Closes the 2026-07-28 connection (its kernels): idle too long, or the server stops. */
  private async closeModern(why?: string) {
    const modern = this.modern;
    this.modern = undefined;
    if (!modern) return;
    if (why) await modern.connection.stopCalls(why);
    await modern.serve.close().finally(() => modern.connection.close());
  }

  private closeIdle() {
    const now = performance.now();
    const modern = this.modern?.connection;
    if (modern && !modern.busy && now - modern.lastActive >= this.opts.idleTimeoutMs) void this.closeModern();
    for (const [id, { connection, transport }] of this.sessions) {
      if (connection.busy || now - connection.lastActive < this.opts.idleTimeoutMs) continue;
      this.sessions.delete(id);
      void transport.close().finally(() => connection.close());
    }
  }

  /**
   * Closes every session (shutting its kernels down) and stops listening. `why` (a signal): the
   * calls in flight are first answered with an error saying it.
   */
  async close(why?: string): Promise<void> {
    clearInterval(this.sweeper);
    const sessions = [...this.sessions.values()];
    this.sessions.clear();
    await this.closeModern(why);
    await Promise.all(
      sessions.map(async ({ connection, transport }) => {
        if (why) await connection.stopCalls(why);
        await transport.close().finally(() => connection.close());
      }),
    );
    this.http.closeAllConnections();
    await new Promise<void>((resolve) => this.http.close(() => resolve()));
  }
}

/** A request of the 2026-07-28 era: server/discover, or one with the revision in its `_meta`. */
function isModernRequest(body: unknown): boolean {
  return typeof body === 'object' && body !== null && !Array.isArray(body) && isModernMessage(body as never);
}
