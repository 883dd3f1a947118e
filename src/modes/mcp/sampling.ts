/**
 * The bridge of an MCP connection's kernels: `completion()` in a cell is answered by the client
 * through MCP sampling (`sampling/createMessage`) when no --completion-command is configured;
 * `agent()` and configured commands go to the command bridge as in the other front ends.
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { CreateMessageRequest, RequestId } from '@modelcontextprotocol/sdk/types.js';
import { type BridgeHandler, commandBridge, type Settings } from './engine.js';
import { asksClient } from './versions.js';

/** The server as sampling uses it, with the revision it speaks (unset before initialize). */
type SamplingServer = Server & { protocolVersion?: string };

/** Tokens the client may spend on one completion. */
const SAMPLING_MAX_TOKENS = 4096;
/** How long a sampling request may wait (a client may ask its user to approve it). */
const SAMPLING_TIMEOUT_MS = 10 * 60_000;

const NO_SAMPLING_MESSAGE =
  'completion() has nothing to answer it: this MCP client does not support sampling (sampling/createMessage), and no completion command is configured. Start omp-eval mcp with --completion-command CMD (or set bridge.completionCommand in the config file).';

/** Why completion() has no answer on a connection of `version` (2026-07-28: no server requests). */
const noSamplingIn = (version: string | undefined) =>
  `completion() has nothing to answer it: this connection speaks MCP ${version}, where a server cannot send the client requests, sampling (sampling/createMessage) among them, and no completion command is configured. Start omp-eval mcp with --completion-command CMD (or set bridge.completionCommand in the config file), or connect with a client of an earlier MCP revision that offers sampling.`;

/** The sampling request for a completion() call's payload {prompt, model, system, schema}. */
function samplingRequest(payload: Record<string, unknown>): CreateMessageRequest['params'] {
  const system = typeof payload.system === 'string' && payload.system ? [payload.system] : [];
  if (payload.schema !== undefined && payload.schema !== null) {
    system.push(
      `Answer with one JSON value that matches this JSON Schema, and nothing else:\n${JSON.stringify(payload.schema)}`,
    );
  }
  return {
    messages: [{ role: 'user', content: { type: 'text', text: String(payload.prompt ?? '') } }],
    maxTokens: SAMPLING_MAX_TOKENS,
    includeContext: 'none',
    ...(system.length ? { systemPrompt: system.join('\n\n') } : {}),
    ...(typeof payload.model === 'string' && payload.model
      ? { modelPreferences: { hints: [{ name: payload.model }] } }
      : {}),
  };
}

/** Asks the client for one completion; resolves with the bridge's answer `{output}`. */
async function sampleCompletion(
  server: SamplingServer,
  payload: Record<string, unknown>,
  signal: AbortSignal,
  relatedRequestId?: RequestId,
): Promise<{ output: string }> {
  if (!asksClient(server.protocolVersion)) throw new Error(noSamplingIn(server.protocolVersion));
  if (!server.getClientCapabilities()?.sampling) throw new Error(NO_SAMPLING_MESSAGE);
  let result: Awaited<ReturnType<Server['createMessage']>>;
  try {
    result = await server.createMessage(samplingRequest(payload), {
      signal,
      timeout: SAMPLING_TIMEOUT_MS,
      ...(relatedRequestId !== undefined ? { relatedRequestId } : {}),
    });
  } catch (err) {
    if (signal.aborted) throw new Error('cancelled: the cell was interrupted');
    throw new Error(`the MCP client did not answer the sampling request: ${(err as Error).message}`);
  }
  const blocks = Array.isArray(result.content) ? result.content : [result.content];
  const text = blocks.flatMap((b) => (b.type === 'text' ? [b.text] : []));
  if (!text.length) {
    throw new Error(
      `the MCP client answered the sampling request with ${blocks.map((b) => b.type).join(', ') || 'nothing'}, not text`,
    );
  }
  return { output: text.join('') };
}

/**
 * The bridge for kernels of one MCP connection. `relatedRequest` names the tool call whose cell
 * runs now, so the sampling request travels with it (over HTTP, on that call's stream).
 */
export function connectionBridge(
  settings: Settings,
  server: SamplingServer,
  relatedRequest: () => RequestId | undefined,
): BridgeHandler {
  const completionCommand = settings['bridge.completionCommand'];
  const commands = commandBridge({
    ...(settings['bridge.agentCommand'] ? { agent: settings['bridge.agentCommand'] } : {}),
    ...(completionCommand ? { completion: completionCommand } : {}),
  });
  return (request, signal) => {
    if (request.kind === 'completion' && !completionCommand)
      return sampleCompletion(server, request.payload, signal, relatedRequest());
    return commands(request, signal);
  };
}
