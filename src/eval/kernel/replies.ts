/**
 * Requests in flight that a kernel answers with a reply frame of the same id (completion,
 * completeness, variables), or that are given up after a deadline.
 */

export class PendingReplies {
  private readonly waiting = new Map<string, (frame: unknown) => void>();

  /**
   * Sends a request with `send` and resolves with `read(reply)`; after `timeoutMs` without a
   * reply, with `fallback` (then `onTimeout` runs: user code may be holding the kernel).
   */
  request<T>(
    id: string,
    opts: {
      timeoutMs: number;
      send: () => void;
      read: (frame: never) => T;
      fallback: () => T;
      onTimeout?: () => void;
    },
  ): Promise<T> {
    return new Promise<T>((resolve) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        resolve(opts.fallback());
        opts.onTimeout?.();
      }, opts.timeoutMs);
      this.waiting.set(id, (frame) => {
        clearTimeout(timer);
        resolve(opts.read(frame as never));
      });
      opts.send();
    });
  }

  /** A reply frame: resolves its request (a late or unknown one is dropped). */
  answer(frame: { id: string }): void {
    const resolve = this.waiting.get(frame.id);
    this.waiting.delete(frame.id);
    resolve?.(frame);
  }
}
