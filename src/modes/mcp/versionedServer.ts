/**
 * The SDK's Server as this server uses it: knowing the MCP revision agreed with the client, so
 * that what goes out follows it, and telling when each answer went out.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  type CallToolResult,
  type InitializeResult,
  isInitializeRequest,
  isJSONRPCResultResponse,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { supports, withTitle } from './versions.js';

export type Extra = Parameters<Parameters<Server['setRequestHandler']>[1]>[1];
export type CallToolRequest = Parameters<Parameters<Server['setRequestHandler']>[1]>[0] & {
  params: { name: string; arguments?: Record<string, unknown>; task?: { ttl?: number | null } };
};

/**
 * The SDK's Server, knowing the MCP revision it agreed with the client: what the server sends
 * follows it (a field or content type newer than the client's revision can make it reject the
 * whole message). The revision is read from the answer to initialize as it goes out; the Server
 * calls a transport's own `onmessage` before its own, so the request is seen first.
 */
export class VersionedServer extends Server {
  /** The revision agreed in initialize (unset before). */
  protocolVersion?: string;
  /** Told of each answer (result or error) once it went out, or failed to. */
  onAnswered?: (id: string | number) => void;

  override async connect(transport: Transport): Promise<void> {
    let initializeId: string | number | undefined;
    transport.onmessage = (message) => {
      if (isInitializeRequest(message)) initializeId = (message as { id: string | number }).id;
    };
    const send = transport.send.bind(transport);
    transport.send = (message, options) => {
      if (initializeId !== undefined && isJSONRPCResultResponse(message) && message.id === initializeId) {
        initializeId = undefined;
        const result = message.result as InitializeResult;
        this.protocolVersion = result.protocolVersion;
        message = {
          ...message,
          result: { ...result, serverInfo: withTitle(result.serverInfo, result.protocolVersion) },
        };
      }
      const answer = 'id' in message && ('result' in message || 'error' in message) ? message.id : undefined;
      const sent = send(message, options);
      if (answer !== undefined && answer !== null)
        void sent.then(
          () => this.onAnswered?.(answer),
          () => this.onAnswered?.(answer),
        );
      return sent;
    };
    await super.connect(transport);
  }
}

/**
 * A tool as a client of `version` knows tools: no title or output schema before 2025-06-18, no
 * annotations before 2025-03-26, and eval as a task (2025-11-25) only from then on.
 */
export function toolFor(tool: Tool, version: string | undefined): Tool {
  const { outputSchema, annotations, ...rest } = withTitle(tool, version);
  return {
    ...rest,
    ...(outputSchema && supports(version, 'structuredContent') ? { outputSchema } : {}),
    ...(annotations && supports(version, 'annotations') ? { annotations } : {}),
    ...(tool.name === 'eval' && supports(version, 'tasks') ? { execution: { taskSupport: 'optional' } } : {}),
  };
}

/** A tool result as a client of `version` takes it: no structured part or link block before 2025-06-18. */
export function resultFor(result: CallToolResult, version: string | undefined): CallToolResult {
  if (supports(version, 'structuredContent') && supports(version, 'resourceLink')) return result;
  const { structuredContent: _, ...rest } = result;
  return { ...rest, content: result.content.filter((c) => c.type !== 'resource_link') };
}
