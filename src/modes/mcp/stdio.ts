/**
 * `omp-eval mcp` over stdio: one client, one connection. The server ends when the client goes
 * away (stdin ends, stdout breaks) or on SIGTERM/SIGINT/SIGHUP, after shutting its kernels down.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { StdioBatches } from './batches.js';
import { type ConnectionOptions, McpConnection } from './connection.js';
import { type ModernChannel, StdioEraRouter } from './eraRouter.js';
import { JsonRpcLineGuard } from './lineGuard.js';
import { FIRST_MODERN_REVISION } from './versions.js';

export interface StdioServeOptions extends ConnectionOptions {
  stdin?: NodeJS.ReadableStream;
  stdout?: NodeJS.WritableStream;
  /** Diagnostics (an MCP client keeps a server's stderr in its logs). */
  stderr?: NodeJS.WritableStream;
}

/** Serves until the client goes away; resolves with the exit code. */
export async function serveStdio(opts: StdioServeOptions): Promise<number> {
  const stdin = opts.stdin ?? process.stdin;
  const stdout = opts.stdout ?? process.stdout;
  const stderr = opts.stderr ?? process.stderr;
  const connection = new McpConnection(opts);
  // Lines that are no JSON-RPC message are answered (Parse error, Invalid Request) and left out
  // before the transport reads them: it would not answer them, and would close on a long one.
  // (JSON-RPC batches, where the negotiated revision has them: their answers go out as one array)
  const batches = new StdioBatches(
    () => connection.protocolVersion,
    (line) => stdout.write(line),
  );
  const guard = new JsonRpcLineGuard(
    (response) => stdout.write(`${JSON.stringify(response)}\n`),
    (what) => stderr.write(`omp-eval mcp: ${what}\n`),
    undefined,
    batches,
  );
  stdin.pipe(guard);
  // (the transport listened for stdin's errors itself; a pipe passes none on)
  stdin.on('error', (err) => {
    stderr.write(`omp-eval mcp: cannot read stdin: ${err.message}\n`);
    void transport.close();
  });
  const transport = new StdioServerTransport(
    guard as unknown as NodeJS.ReadStream,
    stdout as NodeJS.WriteStream,
  );
  const send = transport.send.bind(transport);
  transport.send = (message) => (batches.hold(message) ? Promise.resolve() : send(message));
  const report = (err: Error) => {
    stderr.write(`omp-eval mcp: ${err.message.split('\n')[0]}\n`);
  };
  connection.server.onerror = report;
  if ((stdin as NodeJS.ReadStream).isTTY) {
    stderr.write(
      'omp-eval mcp: serving MCP (JSON-RPC) on stdin and stdout, for an MCP client to start; see omp-eval mcp --print-config. Ctrl-D ends it.\n',
    );
  }
  let code = 0;
  const ended = new Promise<void>((resolve) => {
    connection.server.onclose = () => resolve();
  });
  const onEnd = () => void transport.close();
  // A signal: the calls in flight are answered with an error first (the client may keep stdin
  // open and wait for them), then the transport closes and the kernels are shut down. stdin no
  // longer holds the process then.
  const onSignal = (signal: NodeJS.Signals, exitCode: number) => () => {
    code ||= exitCode;
    stdin.unpipe(guard);
    void connection
      .stopCalls(`omp-eval mcp is shutting down (${signal})`)
      .finally(() => transport.close())
      .finally(() => (stdin as NodeJS.ReadStream).destroy?.());
  };
  const signals: [NodeJS.Signals, () => void][] = [
    ['SIGTERM', onSignal('SIGTERM', 143)],
    ['SIGHUP', onSignal('SIGHUP', 129)],
    ['SIGINT', onSignal('SIGINT', 130)],
  ];
  stdin.once('end', onEnd);
  stdin.once('close', onEnd);
  // EPIPE: the client closed our stdout; nothing more can be said to it.
  stdout.on('error', onEnd);
  for (const [signal, handler] of signals) process.once(signal, handler);
  // A 2026-07-28 client's messages go to the v2 server; the earlier revisions' on to the v1 one.
  // (routed from the first message on: the router wraps the server's reader as it starts)
  const router = new StdioEraRouter(
    (message) => legacy?.(message),
    () => lazyModernChannel(connection, (message) => send(message), report),
    (isModern) => connection.speak(isModern ? FIRST_MODERN_REVISION : undefined),
  );
  let legacy: ((message: JSONRPCMessage) => void) | undefined;
  const start = transport.start.bind(transport);
  transport.start = () => {
    legacy = transport.onmessage?.bind(transport);
    transport.onmessage = (message) => router.route(message);
    return start();
  };
  try {
    await connection.server.connect(transport);
    await ended;
  } finally {
    await router.close();
    for (const [signal, handler] of signals) process.off(signal, handler);
    stdin.off('end', onEnd);
    stdin.off('close', onEnd);
    await connection.close();
  }
  return code;
}

/**
 * The 2026-07-28 side, its module (and the v2 SDK) loaded when the first message of that era comes:
 * a client of an earlier revision does not wait for it. Messages that come meanwhile wait, in order.
 */
function lazyModernChannel(
  ...args: Parameters<typeof import('./modern.js').openModernChannel>
): ModernChannel {
  const waiting: JSONRPCMessage[] = [];
  let channel: ModernChannel | undefined;
  const ready = import('./modern.js').then(({ openModernChannel }) => {
    channel = openModernChannel(...args);
    for (const message of waiting.splice(0)) channel.deliver(message);
  });
  ready.catch((err: Error) => args[2]?.(new Error(`cannot serve MCP 2026-07-28: ${err.message}`)));
  return {
    deliver: (message) => (channel ? channel.deliver(message) : void waiting.push(message)),
    close: async () => {
      await ready.catch(() => {});
      await channel?.close();
    },
  };
}
