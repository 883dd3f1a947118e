/**
 * A remote kernel's connection on its own (src/eval/remote/remoteConnection.ts, with the watch of
 * connectionWatch.ts and the questions of queries.ts), against a real Jupyter server and its
 * ipykernel: opened and ready, restarted by us (no news) or by another client (news), shut down
 * behind its back (lost), its background output, completions with offsets past characters outside
 * the BMP, and let go of at the end.
 */
import type { KernelMessage } from '@jupyterlab/services';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/eval/logger.js';
import { remoteComplete, remoteIsComplete } from '../../src/eval/remote/queries.js';
import { type ConnectionEvents, RemoteConnection } from '../../src/eval/remote/remoteConnection.js';
import { RemoteServer } from '../../src/eval/remote/server.js';
import { type JupyterServer, runningKernels, startJupyterServer } from '../helpers/jupyter.js';
import { waitFor } from '../helpers/kernel.js';

let server: JupyterServer;
beforeAll(async () => {
  server = await startJupyterServer();
});
afterAll(async () => {
  await server?.stop();
});

/** A kernel started on the server, a connection to it opened, and what the connection told. */
async function connect() {
  const remote = new RemoteServer({ url: server.url, token: server.token });
  const { settings } = await remote.client();
  const kernel = await remote.startKernel(settings);
  const told = {
    restarted: [] as string[],
    lost: [] as [string, string][],
    background: [] as KernelMessage.IIOPubMessage[],
    ourRestarts: 0,
  };
  const events: ConnectionEvents = {
    onRestarted: (reason) => told.restarted.push(reason),
    onLost: (ename, reason) => told.lost.push([ename, reason]),
    background: (msg) => told.background.push(msg),
    restarted: () => told.ourRestarts++,
  };
  const link = new RemoteConnection(
    { server: remote, kernel, logger: silentLogger, executable: 'test', reconnectMs: 60_000 },
    events,
  );
  let languageInfo: unknown;
  await link.open(false, (info) => (languageInfo = info));
  return { link, kernel, told, languageInfo };
}

/**
 * Ends the test's use of the kernel: release() alone, which stops the watch itself (a connection
 * the server closes would otherwise be reconnected after it is disposed: an uncaught error).
 */
async function close(link: RemoteConnection) {
  await link.release(true, false);
}

describe('RemoteConnection against a real Jupyter server', { timeout: 120_000 }, () => {
  it('opens once the kernel answers kernel_info, and gives its language', async () => {
    const { link, kernel, languageInfo } = await connect();
    expect(languageInfo).toMatchObject({ name: 'python' });
    expect(link.connection.connectionStatus).toBe('connected');
    await close(link);
    expect(await runningKernels(server)).not.toContain(kernel.id);
  });

  it('a restart it asks for is no news; one another client makes is, and is waited for', async () => {
    const { link, kernel, told } = await connect();
    await link.restart();
    expect(told.ourRestarts).toBe(1);
    expect(told.restarted).toEqual([]);
    const before = await link.connection.requestKernelInfo();
    const oldSession = before?.header.session;
    const { status } = await server.rest('POST', `api/kernels/${kernel.id}/restart`);
    expect(status).toBe(200);
    await waitFor(() => told.restarted.length > 0, 60_000, 'the restart to be reported');
    expect(told.restarted[0]).toMatch(/restarted/);
    expect(await link.awaitRestarted(oldSession, () => true)).toBe(true);
    expect(told.lost).toEqual([]);
    await close(link);
  });

  it('a kernel shut down behind its back is lost, and says so', async () => {
    const { link, kernel, told } = await connect();
    const { status } = await server.rest('DELETE', `api/kernels/${kernel.id}`);
    expect(status).toBe(204);
    await waitFor(() => told.lost.length > 0, 60_000, 'the kernel to be reported lost');
    expect(told.lost[0]?.[0]).toBe('KernelDied');
    expect(told.lost[0]?.[1]).toContain('127.0.0.1');
    link.drop();
  });

  it('hands on what a thread of its own earlier request prints after it ended, as background', async () => {
    const { link, told } = await connect();
    const future = link.connection.requestExecute({
      code: 'import threading\nthreading.Timer(0.2, lambda: print("later", flush=True)).start()',
    });
    await future.done;
    future.dispose();
    await waitFor(
      () => told.background.some((m) => m.header.msg_type === 'stream'),
      60_000,
      'the thread’s output',
    );
    const stream = told.background.find((m) => m.header.msg_type === 'stream');
    expect(stream?.content).toMatchObject({ text: 'later\n' });
    await close(link);
  });

  it('completes and checks completeness, its offsets in UTF-16 past characters outside the BMP', async () => {
    const { link } = await connect();
    const code = 's = "😀😀"; pri';
    const completion = await remoteComplete(link.connection, code, code.length, 60_000);
    expect(completion.matches).toContain('print');
    expect(code.slice(completion.start, completion.end)).toBe('pri');
    expect(await remoteIsComplete(link.connection, 'for i in range(3):', 60_000)).toMatchObject({
      status: 'incomplete',
    });
    expect(await remoteIsComplete(link.connection, 'x = 1', 60_000)).toEqual({ status: 'complete' });
    await close(link);
  });
});
