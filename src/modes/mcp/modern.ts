/**
 * The server a client of MCP 2026-07-28 talks to: the v2 SDK's high-level server (its tools and the
 * artifact resources registered with registerTool and registerResource) over a connection of that
 * era. That revision has no initialize and no Mcp-Session-Id; what a call keeps lives behind the
 * handle it names, and the eval tools have one already: `session`. So every request of the era
 * goes to one McpConnection (per stdio process, or per HTTP server), whose named sessions hold the
 * kernels, and which runs each call on the same path as the earlier revisions' calls.
 *
 * What the revision takes away: requests from the server to the client. completion() in a cell
 * says so (sampling.ts), input() gets its usual error, and the workspace is --cwd (no roots).
 */

import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import {
  type CallToolResult,
  McpServer,
  ResourceTemplate,
  type ServerContext,
  type StandardSchemaWithJSON,
  type Transport,
} from '@modelcontextprotocol/server';
import { type StdioServerHandle, serveStdio } from '@modelcontextprotocol/server/stdio';
import { VERSION } from '../../version.js';
import { listArtifacts, readArtifact } from './artifacts.js';
import type { CallExtra, McpConnection } from './connection.js';
import type { ModernChannel } from './eraRouter.js';
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

/** The handler context of the v2 SDK as a tool call of the connection takes it. */
function callExtra(ctx: ServerContext): CallExtra {
  return {
    signal: ctx.mcpReq.signal,
    requestId: ctx.mcpReq.id,
    ...(ctx.mcpReq._meta ? { _meta: ctx.mcpReq._meta } : {}),
    sendNotification: (notification) =>
      ctx.mcpReq.notify(notification as Parameters<typeof ctx.mcpReq.notify>[0]),
  } as CallExtra;
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
      async (args: unknown, ctx: ServerContext) =>
        (await connection.call(tool.name, args, callExtra(ctx))) as CallToolResult,
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
