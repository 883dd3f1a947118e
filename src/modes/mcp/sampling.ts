/**
 * The bridge of an MCP connection's kernels: `completion()` in a cell is answered by the client
 * through MCP sampling (`sampling/createMessage`, asked as clientAsk.ts says) when no
 * --completion-command is configured; `agent()` and configured commands go to the command bridge
 * as in the other front ends.
 */
import { type CreateMessageRequest, CreateMessageResultSchema } from '@modelcontextprotocol/sdk/types.js';
import type { ClientAsker } from './clientAsk.js';
import { type BridgeHandler, commandBridge, type Settings } from './engine.js';

/** Tokens the client may spend on one completion. */
const SAMPLING_MAX_TOKENS = 4096;
/** How long a sampling request may wait (a client may ask its user to approve it). */
const SAMPLING_TIMEOUT_MS = 10 * 60_000;

const NO_SAMPLING_MESSAGE =
  'completion() has nothing to answer it: this MCP client does not support sampling (sampling/createMessage), and no completion command is configured. Start omp-eval mcp with --completion-command CMD (or set bridge.completionCommand in the config file).';

const NO_CALL_MESSAGE =
  'completion() has nothing to answer it: no eval call is running (a thread of an earlier cell called it), so there is no MCP client to ask, and no completion command is configured. Call it from a cell, or start omp-eval mcp with --completion-command CMD.';

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
  asker: ClientAsker | undefined,
  payload: Record<string, unknown>,
  signal: AbortSignal,
): Promise<{ output: string }> {
  if (!asker) throw new Error(NO_CALL_MESSAGE);
  if (!asker.capabilities?.sampling) throw new Error(NO_SAMPLING_MESSAGE);
  let result: Awaited<ReturnType<typeof CreateMessageResultSchema.parse>>;
  try {
    result = await asker.ask(
      { method: 'sampling/createMessage', params: samplingRequest(payload) },
      CreateMessageResultSchema,
      { signal, timeoutMs: SAMPLING_TIMEOUT_MS },
    );
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
 * The bridge for kernels of one MCP connection. `asker` is how the call whose cell runs now asks
 * its client (unset between calls).
 */
export function connectionBridge(settings: Settings, asker: () => ClientAsker | undefined): BridgeHandler {
  const completionCommand = settings['bridge.completionCommand'];
  const commands = commandBridge({
    ...(settings['bridge.agentCommand'] ? { agent: settings['bridge.agentCommand'] } : {}),
    ...(completionCommand ? { completion: completionCommand } : {}),
  });
  return (request, signal) => {
    if (request.kind === 'completion' && !completionCommand)
      return sampleCompletion(asker(), request.payload, signal);
    return commands(request, signal);
  };
}
