/**
 * MCP 2026-07-28 over Streamable HTTP: each request is served on its own by the v2 SDK's entry
 * (createMcpHandler: a v2 server per request, no Mcp-Session-Id), all of them by one McpConnection
 * whose named sessions hold the kernels. The SDK's entry speaks web Requests and Responses; this
 * adapts Node's, after http.ts checked the Host, the Origin and the token and read the body.
 * The v2 SDK is loaded at the first such request: a client of an earlier revision never waits for it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import type { McpConnection } from './connection.js';

type Handler = {
  fetch: (request: Request, options?: { parsedBody?: unknown }) => Promise<Response>;
  close: () => Promise<void>;
};

export function serveModernHttp(connection: McpConnection, maxBodyBytes: number) {
  let handler: Promise<Handler> | undefined;
  const load = () =>
    (handler ??= Promise.all([import('@modelcontextprotocol/server'), import('./modern.js')]).then(
      ([{ createMcpHandler }, { modernServer }]) =>
        createMcpHandler(() => modernServer(connection), {
          legacy: 'reject',
          maxRequestBodySize: maxBodyBytes,
        }),
    ));
  const serve = async (req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> => {
    const { fetch } = await load();
    // The client going away aborts its call (the cell is interrupted, as a cancelled call's is).
    const gone = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) gone.abort();
    });
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (typeof value === 'string') headers.set(name, value);
      else if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    }
    const request = new Request(`http://${req.headers.host ?? 'localhost'}${req.url ?? '/'}`, {
      method: 'POST',
      headers,
      body: JSON.stringify(body),
      signal: gone.signal,
    });
    const response = await fetch(request, { parsedBody: body });
    res.writeHead(response.status, Object.fromEntries(response.headers));
    if (!response.body) {
      res.end();
      return;
    }
    // (a call with progress is answered as an event stream: each event is written as it comes)
    Readable.fromWeb(response.body as import('node:stream/web').ReadableStream).pipe(res);
  };
  return Object.assign(serve, {
    close: async () => {
      if (handler) await (await handler).close();
    },
  });
}
