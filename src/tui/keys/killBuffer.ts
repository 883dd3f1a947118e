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

/** The edits (key commands) that kill text for Ctrl-Y, and whether the text was before the cursor. */
const KILLS: ReadonlyMap<string, boolean> = new Map([
  ['deleteToSpace', true],
  ['deleteWordBackward', true],
  ['killToStart', true],
  ['deleteWordForward', false],
  ['killToEnd', false],
]);

/** Whether a key command kills text (Ctrl-Y can paste it back). */
export const isKill = (command: string | undefined): boolean => command !== undefined && KILLS.has(command);

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

  /**
   * The edit `command` turned `before` (cursor at offset `from`) into `after` (cursor at `to`):
   * keeps what it removed when it is a kill (`keep`: not in a password's answer), else ends the row.
   */
  edited(command: string, before: string, from: number, after: string, to: number, keep: boolean): void {
    const backward = KILLS.get(command);
    if (backward === undefined || !keep) this.other();
    else this.kill(removedText(before, from, after, to, backward), backward, command);
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
