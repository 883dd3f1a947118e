/**
 * Back-pressure for a remote kernel: the websockets the client library opens for one kernel,
 * paused while the front end is behind (counted: as many resumes as pauses) and resumed after.
 * A socket opened while paused (a reconnect) starts paused.
 */
import type WebSocket from 'ws';

export class SocketPause {
  private readonly sockets = new Set<WebSocket>();
  private paused = 0;

  /** The websocket class to give the library: every socket it opens is tracked here. */
  tracked(base: typeof WebSocket): typeof WebSocket {
    const pause = this;
    return class TrackedSocket extends base {
      constructor(address: string | URL, protocols?: string | string[]) {
        super(address, protocols);
        pause.sockets.add(this);
        this.once('open', () => pause.paused > 0 && this.pause());
        this.once('close', () => pause.sockets.delete(this));
      }
    } as unknown as typeof WebSocket;
  }

  pause(): void {
    if (++this.paused === 1) for (const socket of this.sockets) socket.pause();
  }

  resume(): void {
    if (this.paused === 0) return;
    if (--this.paused === 0) for (const socket of this.sockets) socket.resume();
  }
}
