/**
 * The edits that key bindings name, on the prompt and on an input() answer alike, with the kill
 * buffer that Ctrl-Y yanks from.
 */
import * as ed from './editor.js';
import type { KeyCommand } from './keyBindings.js';
import { KillBuffer } from './killBuffer.js';

/** Edits of the editor that a key binding names directly. */
const EDITS: Partial<Record<KeyCommand, (s: ed.EditorState) => ed.EditorState>> = {
  newline: ed.newline,
  left: (s) => ed.move(s, 0, -1),
  right: (s) => ed.move(s, 0, 1),
  wordLeft: ed.wordLeft,
  wordRight: ed.wordRight,
  home: ed.home,
  end: ed.end,
  backspace: ed.backspace,
  deleteForward: ed.deleteForward,
  deleteToSpace: ed.deleteToSpace,
  deleteWordBackward: ed.deleteWord,
  deleteWordForward: ed.deleteWordForward,
  killToStart: ed.killToStart,
  killToEnd: ed.killToEnd,
  transpose: ed.transpose,
};

export class KeyEdits {
  readonly kills = new KillBuffer();

  /**
   * The edit a key binding names, keeping what kills remove for Ctrl-Y (undefined: no edit).
   * `keep` false: what is removed is not kept (a password's characters).
   */
  edit(command: KeyCommand | undefined, s: ed.EditorState, keep = true): ed.EditorState | undefined {
    if (command === 'yank') {
      this.kills.other();
      return this.kills.yank ? ed.insert(s, this.kills.yank) : s;
    }
    const edit = command && EDITS[command];
    if (!command || !edit) return undefined;
    const after = edit(s);
    const [from, to] = [ed.cursorOffset(s), ed.cursorOffset(after)];
    this.kills.edited(command, ed.editorText(s), from, ed.editorText(after), to, keep);
    return after;
  }
}
