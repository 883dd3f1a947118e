/**
 * Prompt acknowledgements on a kernel's websocket. The Jupyter server (tornado, as Debian ships
 * it) leaves Nagle's algorithm on for its websockets: a reply is several small writes (status
 * busy, execute_input, the result, the reply, status idle), and each write after the first waits
 * until the previous one is acknowledged, while Linux delays a bare acknowledgement by up to
 * 40 ms. A warm `1+1` took 46 ms at best where the messages themselves take 12. Our side cannot
 * set TCP_NODELAY on the server's socket, but any data we send carries the acknowledgement at
 * once: after each turn of the event loop in which messages came, the socket sends an empty
 * unsolicited pong (6 bytes; RFC 6455 §5.5.3 allows it, and no answer comes back).
 */
import type WebSocket from 'ws';

/** The websocket class `base`, acknowledging what it receives at once. */
export function withQuickAck(base: typeof WebSocket): typeof WebSocket {
  return class QuickAckSocket extends base {
    constructor(...args: ConstructorParameters<typeof WebSocket>) {
      super(...args);
      let pending = false;
      const acknowledge = () => {
        pending = false;
        if (this.readyState === base.OPEN) this.pong();
      };
      this.on('message', () => {
        if (pending) return;
        pending = true;
        setImmediate(acknowledge);
      });
    }
  } as unknown as typeof WebSocket;
}
