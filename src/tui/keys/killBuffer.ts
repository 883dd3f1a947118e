/**
 * Ctrl-Y: the text the last kill removed (Ctrl-K, Ctrl-U, Ctrl-W, Alt-Backspace, Alt-D), as
 * readline and IPython's prompt keep it. Kills in a row add up, in the order the text had: Ctrl-W
 * twice yanks both words back. Any other key ends the row.
 */

/** What an edit removed from `before` to make `after` (one contiguous piece). */
export function removedText(before: string, after: string): string {
  let start = 0;
  const most = Math.min(before.length, after.length);
  while (start < most && before.charCodeAt(start) === after.charCodeAt(start)) start++;
  let end = 0;
  while (
    end < most - start &&
    before.charCodeAt(before.length - 1 - end) === after.charCodeAt(after.length - 1 - end)
  )
    end++;
  return before.slice(start, before.length - end);
}

export class KillBuffer {
  private text = '';
  private inRow = false;

  /** A kill removed `removed`; `backward`: it was before the cursor (Ctrl-U, Ctrl-W). */
  kill(removed: string, backward: boolean): void {
    if (!removed) return;
    if (!this.inRow) this.text = removed;
    else this.text = backward ? removed + this.text : this.text + removed;
    this.inRow = true;
  }

  /** Any key but a kill. */
  other(): void {
    this.inRow = false;
  }

  /** What Ctrl-Y inserts ('' before any kill). */
  get yank(): string {
    return this.text;
  }
}
