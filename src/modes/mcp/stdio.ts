/**
 * `omp-eval mcp` over stdio: one client, one connection. The server ends when the client goes
 * away (stdin ends, stdout breaks) or on SIGTERM/SIGINT/SIGHUP, after shutting its kernels down.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StdioBatches } from './batches.js';
import { type ConnectionOptions, McpConnection } from './connection.js';
import { JsonRpcLineGuard } from './lineGuard.js';

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
  connection.server.onerror = (err) => {
    stderr.write(`omp-eval mcp: ${err.message.split('\n')[0]}\n`);
  };
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
  try {
    await connection.server.connect(transport);
    await ended;
  } finally {
    for (const [signal, handler] of signals) process.off(signal, handler);
    stdin.off('end', onEnd);
    stdin.off('close', onEnd);
    await connection.close();
  }
  return code;
}
