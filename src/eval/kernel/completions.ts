/** Completion requests in flight, answered by `complete_reply` frames or given up after a deadline. */
import type { CompleteReplyFrame } from '../protocol/index.js';
import type { Completion } from './types.js';

export class CompletionRequests {
  private readonly waiting = new Map<string, (c: Completion) => void>();

  /**
   * Sends a request with `send` and resolves with its answer; after `timeoutMs` with no
   * completions (then `onTimeout` runs: user code may be holding the kernel).
   */
  request(
    id: string,
    cursor: number,
    timeoutMs: number,
    send: () => void,
    onTimeout: () => void,
  ): Promise<Completion> {
    return new Promise<Completion>((resolve) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        resolve({ matches: [], start: cursor, end: cursor });
        onTimeout();
      }, timeoutMs);
      this.waiting.set(id, (completion) => {
        clearTimeout(timer);
        resolve(completion);
      });
      send();
    });
  }

  answer(frame: CompleteReplyFrame): void {
    const resolve = this.waiting.get(frame.id);
    this.waiting.delete(frame.id);
    resolve?.({ matches: frame.matches, start: frame.start, end: frame.end });
  }
}
