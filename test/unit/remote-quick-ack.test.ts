/**
 * A kernel's websocket acknowledges what it receives at once (issue 42, item 9): the Jupyter
 * server leaves Nagle's algorithm on, so its next small write waits for our acknowledgement,
 * which Linux delays by up to 40 ms unless data goes back. The socket sends an empty pong after
 * the messages of each turn of the event loop.
 */
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import { withQuickAck } from '../../src/eval/remote/quickAck.js';

let server: WebSocketServer | undefined;
afterEach(async () => {
  for (const client of server?.clients ?? []) client.terminate();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
});

async function serve(): Promise<{ url: string; peer: Promise<WebSocket> }> {
  server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise((resolve) => server?.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  const peer = new Promise<WebSocket>((resolve) => server?.once('connection', resolve));
  return { url: `ws://127.0.0.1:${port}/`, peer };
}

describe('the remote kernel websocket', () => {
  it('answers the messages it receives with an empty pong, one per turn of the event loop', async () => {
    const { url, peer } = await serve();
    const Socket = withQuickAck(WebSocket);
    const client = new Socket(url);
    const received: string[] = [];
    client.on('message', (data) => received.push(String(data)));
    const serverSide = await peer;
    let pongs = 0;
    serverSide.on('pong', (data) => {
      expect(data.length).toBe(0);
      pongs++;
    });
    await new Promise((resolve) => client.once('open', resolve));
    serverSide.send('busy');
    serverSide.send('execute_input');
    await vi.waitFor(() => expect(pongs).toBeGreaterThan(0), { timeout: 10_000 });
    expect(received).toEqual(['busy', 'execute_input']);
    serverSide.send('idle');
    await vi.waitFor(() => expect(pongs).toBeGreaterThan(1), { timeout: 10_000 });
    expect(pongs).toBeLessThanOrEqual(3);
    client.close();
  });

  it('sends nothing once closed', async () => {
    const { url, peer } = await serve();
    const client = new (withQuickAck(WebSocket))(url);
    const serverSide = await peer;
    await new Promise((resolve) => client.once('open', resolve));
    const errors: unknown[] = [];
    client.on('error', (e) => errors.push(e));
    client.on('message', () => client.close());
    serverSide.send('last');
    await new Promise((resolve) => client.once('close', resolve));
    expect(errors).toEqual([]);
  });
});
