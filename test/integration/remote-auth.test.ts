/**
 * The Jupyter token travels in an `Authorization: token ...` header, never in a URL (URLs end up
 * in proxies' and servers' access logs): a logging proxy between the client and a real Jupyter
 * server records every request line and header, REST calls and websocket handshakes alike. A
 * password in the server URL is refused before any request, and no message repeats it.
 */
import { createServer, type IncomingMessage, request, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { makeExecutor } from '../helpers/executor.js';
import { type JupyterServer, startJupyterServer } from '../helpers/jupyter.js';

interface Seen {
  method: string;
  url: string;
  authorization: string | undefined;
  upgrade: boolean;
}

/** An HTTP proxy to 127.0.0.1:`target` that records each request (websocket upgrades included). */
async function loggingProxy(target: number) {
  const seen: Seen[] = [];
  const sockets = new Set<Socket>();
  const record = (req: IncomingMessage, upgrade: boolean) =>
    seen.push({
      method: req.method ?? '',
      url: req.url ?? '',
      authorization: req.headers.authorization,
      upgrade,
    });
  const server: Server = createServer((req, res) => {
    record(req, false);
    const upstream = request(
      { host: '127.0.0.1', port: target, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  server.on('upgrade', (req: IncomingMessage, client: Socket, head: Buffer) => {
    record(req, true);
    const upstream = connect(target, '127.0.0.1', () => {
      const lines = [`${req.method} ${req.url} HTTP/1.1`];
      for (let i = 0; i < req.rawHeaders.length; i += 2)
        lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
      upstream.write(`${lines.join('\r\n')}\r\n\r\n`);
      upstream.write(head);
      client.pipe(upstream);
      upstream.pipe(client);
    });
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => s.destroy());
      s.on('close', () => {
        sockets.delete(s);
        client.destroy();
        upstream.destroy();
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    port,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

let jupyter: JupyterServer;
let proxy: Awaited<ReturnType<typeof loggingProxy>>;

beforeAll(async () => {
  jupyter = await startJupyterServer();
}, 90_000);
afterAll(async () => {
  await jupyter?.stop();
});
afterEach(async () => {
  await proxy?.close();
});

const py = (code: string) => ({ language: 'py' as const, code });

/** Runs a cell through the proxy with these jupyter.* settings; what the proxy saw. */
async function throughProxy(settings: (base: string) => Record<string, string>) {
  proxy = await loggingProxy(jupyter.port);
  const ex = makeExecutor({ settings: settings(`http://127.0.0.1:${proxy.port}/`) as never });
  const [result] = await ex.runOnce([py('21 * 2')]);
  await ex.dispose(); // the kernel's shutdown goes through the proxy too
  return { result, seen: proxy.seen };
}

function expectHeadersOnly(seen: Seen[], token: string) {
  expect(seen.some((r) => r.upgrade && r.url.includes('/channels'))).toBe(true);
  expect(seen.some((r) => !r.upgrade && r.url.startsWith('/api/kernels'))).toBe(true);
  for (const r of seen) {
    expect(r.url).not.toMatch(/token=/i);
    expect(r.url).not.toContain(token);
    expect(r.authorization, `${r.method} ${r.url}`).toBe(`token ${token}`);
  }
}

describe('remote kernel: the token goes in a header', () => {
  it('--token: every REST call and the websocket handshake carry the header, no URL the token', async () => {
    const { result, seen } = await throughProxy((url) => ({
      'jupyter.url': url,
      'jupyter.token': jupyter.token,
    }));
    expect(result?.text, jupyter.log()).toBe('42\n');
    expectHeadersOnly(seen, jupyter.token);
  }, 60_000);

  it('a token in the URL (as `jupyter server list` prints it) goes in the header too', async () => {
    const { result, seen } = await throughProxy((url) => ({
      'jupyter.url': `${url}?token=${jupyter.token}`,
    }));
    expect(result?.text, jupyter.log()).toBe('42\n');
    expectHeadersOnly(seen, jupyter.token);
  }, 60_000);

  it('a password in the URL is refused before any request, and the error does not repeat it', async () => {
    const { result, seen } = await throughProxy((url) => ({
      'jupyter.url': url.replace('http://', 'http://ann:hunter2-pw@'),
      'jupyter.token': jupyter.token,
    }));
    expect(result?.status).toBe('error');
    expect(result?.error?.evalue).toMatch(/user name or password in it \(not shown\)/);
    expect(JSON.stringify(result)).not.toMatch(/hunter2|ann:|ann@/);
    expect(JSON.stringify(result)).not.toContain(jupyter.token);
    expect(seen).toEqual([]);
  }, 60_000);
});
