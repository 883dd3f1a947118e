/**
 * The server a client of MCP 2026-07-28 talks to: the v2 SDK's high-level server (its tools and the
 * artifact resources registered with registerTool and registerResource) over a connection of that
 * era. That revision has no initialize and no Mcp-Session-Id; what a call keeps lives behind the
 * handle it names, and the eval tools have one already: `session`. So every request of the era
 * goes to one McpConnection (per stdio process, or per HTTP server), whose named sessions hold the
 * kernels, and which runs each call on the same path as the earlier revisions' calls.
 *
 * What the revision changes: the server sends the client no requests. A cell's completion() and
 * input() ask through the call itself, which answers `input_required` until the client calls again
 * with the answer (roundTrips.ts); the workspace is --cwd (no roots).
 */

import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import {
  McpServer,
  ResourceTemplate,
  type ServerContext,
  type StandardSchemaWithJSON,
  type Transport,
} from '@modelcontextprotocol/server';
import { type StdioServerHandle, serveStdio } from '@modelcontextprotocol/server/stdio';
import { VERSION } from '../../version.js';
import { listArtifacts, readArtifact } from './artifacts.js';
import type { McpConnection } from './connection.js';
import type { ModernChannel } from './eraRouter.js';
import { RoundTrips } from './roundTrips.js';
import { INSTRUCTIONS } from './tools.js';

/**
 * A JSON Schema as the SDK's Standard Schema: the schema goes out as it is written (tools/list),
 * and every value passes, for the tool's handler to check with messages a model can act on
 * (args.ts: the same messages as `omp-eval tool` and the earlier revisions).
 */
export function asStandardSchema(schema: Record<string, unknown>): StandardSchemaWithJSON {
  return {
    '~standard': {
      version: 1,
      vendor: 'omp-eval',
      validate: (value: unknown) => ({ value }),
      jsonSchema: { input: () => schema, output: () => schema },
    },
  } as StandardSchemaWithJSON;
}

/** The calls of each connection waiting for their client's next round. */
const roundTrips = new WeakMap<McpConnection, RoundTrips>();

/** The connection's calls waiting for a round, made at its first call; closed with it. */
function roundTripsOf(connection: McpConnection): RoundTrips {
  let calls = roundTrips.get(connection);
  if (!calls) {
    calls = new RoundTrips();
    roundTrips.set(connection, calls);
    connection.onClose(() => calls?.close());
  }
  return calls;
}

/** A v2 server serving `connection`'s tools and artifacts (one per request over HTTP, one per stdio client). */
export function modernServer(connection: McpConnection): McpServer {
  const server = new McpServer(
    { name: 'omp-eval', title: 'omp-eval: persistent Python and JavaScript kernels', version: VERSION },
    { capabilities: { tools: {}, resources: {} }, instructions: INSTRUCTIONS },
  );
  for (const tool of connection.tools) {
    server.registerTool(
      tool.name,
      {
        ...(tool.title ? { title: tool.title } : {}),
        ...(tool.description ? { description: tool.description } : {}),
        inputSchema: asStandardSchema(tool.inputSchema),
        ...(tool.outputSchema ? { outputSchema: asStandardSchema(tool.outputSchema) } : {}),
        ...(tool.annotations ? { annotations: tool.annotations } : {}),
      },
      (args: unknown, ctx: ServerContext) =>
        roundTripsOf(connection).serve(tool.name, args, ctx, (extra) =>
          connection.call(tool.name, args, extra),
        ),
    );
  }
  server.registerResource(
    'artifact',
    new ResourceTemplate('artifact://{id}', {
      list: () => ({ resources: listArtifacts(connection.artifactFiles) }),
    }),
    {
      title: 'Full output of a cell',
      description: 'All of the output of a cell whose output was cut in an eval result.',
      mimeType: 'text/plain',
    },
    (uri: URL) => ({ contents: [readArtifact(uri.href)] }),
  );
  return server;
}

/**
 * Serves 2026-07-28 on a connection-shaped `transport` (the stdio client's, or an in-memory one):
 * the SDK's entry answers server/discover and pins the connection to the era at its first other
 * request. It is given only the messages of that era (stdio.ts routes the earlier revisions to
 * the v1 server), so a legacy opening is refused here rather than served twice.
 */
export function serveModern(
  connection: McpConnection,
  transport: Transport,
  onerror?: (error: Error) => void,
): StdioServerHandle {
  return serveStdio(() => modernServer(connection), {
    transport,
    legacy: 'reject',
    ...(onerror ? { onerror } : {}),
  });
}

/**
 * The 2026-07-28 side of a stdio connection: the v2 entry on a channel whose messages the router
 * delivers and whose answers go out through `send` (the stdio transport the v1 server writes to).
 */
export function openModernChannel(
  connection: McpConnection,
  send: (message: JSONRPCMessage) => Promise<void>,
  onerror?: (error: Error) => void,
): ModernChannel {
  // A tool call's answer is owed from its request until its answer is written: a signal's
  // shutdown (stdio.ts) waits for the error answers of the calls in flight before it closes.
  const channel: Transport = {
    start: async () => {},
    send: async (message) => {
      const { id, method } = message as { id?: string | number; method?: string };
      try {
        await send(message as JSONRPCMessage);
      } finally {
        if (id !== undefined && method === undefined) connection.answered(id);
      }
    },
    close: async () => channel.onclose?.(),
  };
  const handle = serveModern(connection, channel, onerror);
  return {
    deliver: (message) => {
      const { id, method } = message as { id?: string | number; method?: string };
      if (method === 'tools/call' && id !== undefined) connection.expectAnswer(id);
      channel.onmessage?.(message as Parameters<NonNullable<Transport['onmessage']>>[0]);
    },
    close: () => handle.close(),
  };
}
