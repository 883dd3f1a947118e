/**
 * One stdio client, two eras: the messages of a client that opens with initialize (MCP 2024-11-05
 * to 2025-11-25) go to the v1 SDK's server as they always did; those of a 2026-07-28 client
 * (server/discover, or requests carrying the revision in `_meta`) to the v2 SDK's (modern.ts).
 * The opening decides, as the specification's stdio compatibility flow has it: a client may probe
 * with server/discover and still fall back to initialize; its first other 2026 request pins the era.
 */
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** The `_meta` key that carries a 2026-07-28 request's revision (the per-request envelope). */
const REVISION_KEY = 'io.modelcontextprotocol/protocolVersion';

type Era = 'opening' | 'probe' | 'legacy' | 'modern';

/** Whether a message speaks the 2026-07-28 era: server/discover, or the revision in its `_meta`. */
export function isModernMessage(message: JSONRPCMessage): boolean {
  if (!('method' in message)) return false;
  if (message.method === 'server/discover') return true;
  const meta = (message.params as { _meta?: unknown } | undefined)?._meta;
  return typeof meta === 'object' && meta !== null && REVISION_KEY in meta;
}

/** A transport-shaped channel the v2 SDK's stdio entry reads from and writes through. */
export interface ModernChannel {
  deliver(message: JSONRPCMessage): void;
  close(): Promise<void>;
}

export class StdioEraRouter {
  private era: Era = 'opening';
  private modern?: ModernChannel;

  constructor(
    /** Hands a message to the v1 server. */
    private readonly legacy: (message: JSONRPCMessage) => void,
    /** Starts serving the 2026-07-28 era (the v2 server), on the first message of it. */
    private readonly openModern: () => ModernChannel,
    /** Told when the era is known or changes: true for 2026-07-28, false for an earlier one. */
    private readonly onEra: (modern: boolean) => void,
  ) {}

  route(message: JSONRPCMessage): void {
    if (this.era === 'legacy') {
      this.legacy(message);
      return;
    }
    if (this.era === 'modern') {
      this.modern?.deliver(message);
      return;
    }
    const modern = isModernMessage(message);
    if (this.era === 'probe' && !modern && 'method' in message && message.method === 'initialize') {
      // The client found no revision in common after its probe and falls back to the handshake.
      void this.modern?.close();
      this.modern = undefined;
      this.era = 'opening';
    }
    if (this.era === 'opening' && !modern) {
      this.era = 'legacy';
      this.onEra(false);
      this.legacy(message);
      return;
    }
    if (!this.modern) {
      this.modern = this.openModern();
      this.onEra(true);
    }
    if (modern && 'method' in message && message.method !== 'server/discover') this.era = 'modern';
    else if (this.era === 'opening') this.era = 'probe';
    this.modern.deliver(message);
  }

  /** Ends the 2026 side, if it was opened. */
  async close(): Promise<void> {
    await this.modern?.close();
  }
}
