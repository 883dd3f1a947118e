/**
 * Ctrl-Y: the text the last kill removed (Ctrl-K, Ctrl-U, Ctrl-W, Alt-Backspace, Alt-D), as
 * IPython's prompt keeps it: the same word kill again adds up, in the order the text had (Ctrl-W
 * twice yanks both words back); Ctrl-K and Ctrl-U, and a different kill, start afresh. Any other
 * key ends the row.
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

const LINE_KILLS: ReadonlySet<string> = new Set(['killToStart', 'killToEnd']);

export class KillBuffer {
  private text = '';
  /** The kill just made, while no other key came after it. */
  private last: string | undefined;

  /**
   * A kill (`command`) removed `removed`; `backward`: it was before the cursor (Ctrl-U, Ctrl-W).
   * Line kills never add up, as prompt_toolkit's kill-line and unix-line-discard.
   */
  kill(removed: string, backward: boolean, command: string): void {
    if (!removed) return;
    const again = this.last === command && !LINE_KILLS.has(command);
    if (!again) this.text = removed;
    else this.text = backward ? removed + this.text : this.text + removed;
    this.last = command;
  }

  /** Any key but a kill. */
  other(): void {
    this.last = undefined;
  }

  /** What Ctrl-Y inserts ('' before any kill). */
  get yank(): string {
    return this.text;
  }
}
