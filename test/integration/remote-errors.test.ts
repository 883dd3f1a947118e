/**
 * What a user can get wrong with a remote kernel, and what a server can do mid-cell: each ends
 * with a clear message, and nothing waits for ever.
 */
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OutputEvent, Session } from '../../src/eval/index.js';
import { remoteKernelFactory } from '../../src/eval/remote/factory.js';
import { FOREIGN_INTERRUPT } from '../../src/eval/remote/remoteCell.js';
import { makeExecutor } from '../helpers/executor.js';
import { freePort, type JupyterServer, runningKernels, startJupyterServer } from '../helpers/jupyter.js';
import { deadlineIn, waitFor } from '../helpers/kernel.js';
import { startTcpProxy } from '../helpers/tcpProxy.js';

let server: JupyterServer;

beforeAll(async () => {
  server = await startJupyterServer();
});
afterAll(async () => {
  await server?.stop();
});

const py = (code: string) => ({ language: 'py' as const, code });

/** The first cell's result with the given jupyter.* settings. */
async function firstCell(settings: Record<string, string>) {
  const ex = makeExecutor({ settings: settings as never });
  const [result] = await ex.runOnce([py('1+1')]);
  return result;
}

describe('remote kernel: what a user can get wrong', () => {
  it('a URL where no server listens', async () => {
    const port = await freePort();
    const result = await firstCell({ 'jupyter.url': `http://127.0.0.1:${port}/`, 'jupyter.token': 'x' });
    expect(result?.status).toBe('error');
    expect(result?.error?.evalue).toMatch(`cannot reach the Jupyter server at 127.0.0.1:${port}`);
    expect(result?.error?.evalue).toMatch(/ECONNREFUSED/);
  });

  it('a URL of a web server that is not a Jupyter server', async () => {
    const web = createServer((_, res) => res.writeHead(404).end('not here'));
    await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
    const { port } = web.address() as { port: number };
    try {
      const result = await firstCell({ 'jupyter.url': `http://127.0.0.1:${port}/` });
      expect(result?.error?.evalue).toMatch(
        `127.0.0.1:${port} does not look like a Jupyter server (HTTP 404`,
      );
    } finally {
      web.close();
    }
  });

  it('a wrong token', async () => {
    const result = await firstCell({ 'jupyter.url': server.url, 'jupyter.token': 'wrong' });
    expect(result?.error?.evalue).toMatch(/refused the token \(HTTP 403\).*--token or JUPYTER_TOKEN/);
  });

  it('the token from JUPYTER_TOKEN, or from the URL as `jupyter server list` prints it', async () => {
    const fromEnv = makeExecutor({
      settings: { 'jupyter.url': server.url },
      hostEnv: { JUPYTER_TOKEN: server.token },
    });
    expect((await fromEnv.runOnce([py('1+1')]))[0]?.text).toBe('2\n');
    const fromUrl = await firstCell({ 'jupyter.url': `${server.url}?token=${server.token}` });
    expect(fromUrl?.text).toBe('2\n');
  });

  it('a kernel name the server does not have', async () => {
    const result = await firstCell({
      'jupyter.url': server.url,
      'jupyter.token': server.token,
      'jupyter.kernelName': 'julia-9',
    });
    expect(result?.error?.evalue).toMatch(/has no kernel named "julia-9"; it offers: python3/);
  });

  it('a kernel id that is gone', async () => {
    const { json } = await server.rest('POST', 'api/kernels', { name: 'python3' });
    const id = (json as { id: string }).id;
    await server.rest('DELETE', `api/kernels/${id}`);
    const result = await firstCell({
      'jupyter.url': server.url,
      'jupyter.token': server.token,
      'jupyter.kernelId': id,
    });
    expect(result?.error?.evalue).toMatch(`has no kernel with id ${id} (it may have been shut down)`);
  });
});

/** Runs a cell that waits for a flag file, calling `whileWaiting` once it has started. */
async function waitingCell(session: Session, whileWaiting: (flag: string) => void) {
  const flag = join(mkdtempSync(join(tmpdir(), 'omp-remote-')), 'go');
  const code = `import os, time\nprint("waiting", flush=True)\nwhile not os.path.exists(${JSON.stringify(flag)}): time.sleep(0.01)\nprint("after")`;
  const events: OutputEvent[] = [];
  const [result] = await session.run([py(code)], {
    onEvent: (_, event) => {
      events.push(event);
      if (event.kind === 'stdout' && event.text.includes('waiting')) whileWaiting(flag);
    },
  });
  return { result, events, flag };
}

describe('remote kernel: interrupted from outside', () => {
  it('a cell interrupted through the server, not by omp-eval, says so', async () => {
    const before = new Set(await runningKernels(server));
    const ex = makeExecutor({ settings: { 'jupyter.url': server.url, 'jupyter.token': server.token } });
    const s = await ex.session();
    let interrupted: Promise<unknown> | undefined;
    const { result, flag } = await waitingCell(s, () => {
      interrupted = runningKernels(server).then((ids) => {
        const id = ids.find((k) => !before.has(k));
        return server.rest('POST', `api/kernels/${id}/interrupt`);
      });
    });
    writeFileSync(flag, '');
    expect(await interrupted).toMatchObject({ status: 204 });
    expect(result?.error?.ename).toBe('KeyboardInterrupt');
    expect(result?.text).toContain(FOREIGN_INTERRUPT);
    // A cell omp-eval interrupts itself has no such note.
    const mine = await s.run([{ ...py('import time\ntime.sleep(60)'), timeout: 1 }]);
    expect(mine[0]?.text).not.toContain(FOREIGN_INTERRUPT);
  });
});

describe('remote kernel: a server that goes away mid-cell', () => {
  it('the server stopping ends the cell with an error, and the next cell says why it cannot run', async () => {
    const own = await startJupyterServer();
    const ex = makeExecutor({ settings: { 'jupyter.url': own.url, 'jupyter.token': own.token } });
    const s = await ex.session();
    let stopped: Promise<void> | undefined;
    const { result } = await waitingCell(s, () => {
      stopped = own.stop();
    });
    expect(result?.status).toBe('error');
    // The server interrupts its kernels before it stops them: the interrupt's error may come
    // before the connection goes, and the cell then says who interrupted it.
    if (result?.error?.ename === 'KeyboardInterrupt') expect(result.text).toContain(FOREIGN_INTERRUPT);
    else {
      expect(['KernelDied', 'ConnectionLost']).toContain(result?.error?.ename);
      expect(result?.error?.evalue).toMatch(`Jupyter server at 127.0.0.1:${own.port}`);
    }
    await stopped;
    const [next] = await s.run([py('1+1')]);
    expect(next?.error?.evalue).toMatch(`cannot reach the Jupyter server at 127.0.0.1:${own.port}`);
  });

  it('a server killed outright: the cell ends once reconnecting fails', async () => {
    const own = await startJupyterServer();
    const ex = makeExecutor({ settings: { 'jupyter.url': own.url, 'jupyter.token': own.token } });
    const s = await ex.session();
    const { result } = await waitingCell(s, () => void own.stop('SIGKILL'));
    expect(result?.error?.ename).toBe('ConnectionLost');
    expect(result?.error?.evalue).toMatch(
      `Lost the connection to the Jupyter server at 127.0.0.1:${own.port}`,
    );
  });
});

describe('remote kernel: a dropped websocket', () => {
  it('is reconnected once and the cell goes on', async () => {
    const proxy = await startTcpProxy(server.port);
    const ex = makeExecutor({
      kernelFactories: {
        py: remoteKernelFactory(
          { url: `http://127.0.0.1:${proxy.port}/`, token: server.token },
          { reconnectMs: 30_000 },
        ),
      },
    });
    const s = await ex.session();
    // The cell goes on once the client has its websocket back and the server counts only that
    // one (what the kernel prints while the server has not yet seen the old socket close reaches
    // only the old socket: Jupyter's own limit, named in the README).
    const connection = () =>
      (s.kernelOf('py') as unknown as { connection: { connectionStatus: string; id: string } }).connection;
    const serverConnections = async () =>
      ((await server.rest('GET', `api/kernels/${connection().id}`)).json as { connections?: number } | null)
        ?.connections;
    const { result } = await waitingCell(s, (flag) => {
      const before = proxy.accepted;
      proxy.drop();
      void (async () => {
        await waitFor(
          () => proxy.accepted > before && connection().connectionStatus === 'connected',
          60_000,
          'the websocket back',
        );
        const until = deadlineIn(60_000);
        while ((await serverConnections()) !== 1 && Date.now() < until)
          await new Promise((resolve) => setTimeout(resolve, 20));
        writeFileSync(flag, '');
      })();
    });
    expect(result?.status).toBe('ok');
    expect(result?.text).toContain('after');
    expect((await s.run([py('1+1')]))[0]?.text).toBe('2\n');
  });

  it('is reported in the cell when reconnecting fails', async () => {
    const proxy = await startTcpProxy(server.port);
    const ex = makeExecutor({
      settings: { 'jupyter.url': `http://127.0.0.1:${proxy.port}/`, 'jupyter.token': server.token },
    });
    const s = await ex.session();
    const { result, events, flag } = await waitingCell(s, () => void proxy.refuse());
    expect(result?.error?.ename).toBe('ConnectionLost');
    expect(events.find((e) => e.kind === 'error')).toMatchObject({
      evalue: expect.stringContaining(`Lost the connection to the Jupyter server at 127.0.0.1:${proxy.port}`),
    });
    expect(existsSync(flag)).toBe(false);
  });
});
