/**
 * Ctrl-Y: the text the last kill removed (Ctrl-K, Ctrl-U, Ctrl-W, Alt-Backspace, Alt-D), as
 * readline and IPython's prompt keep it. Kills in a row add up, in the order the text had: Ctrl-W
 * twice yanks both words back. Any other key ends the row.
 */

/**
 * What a kill removed from `before` (its text, cursor at `from`) to leave `after` (cursor at
 * `to`): a backward kill took the text between the two cursors, a forward one what followed the
 * cursor. (Comparing the two texts alone is ambiguous: `a foo fun` less `foo ` reads as `oo f`.)
 */
export function removedText(
  before: string,
  from: number,
  after: string,
  to: number,
  backward: boolean,
): string {
  return backward ? before.slice(to, from) : before.slice(from, from + before.length - after.length);
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
