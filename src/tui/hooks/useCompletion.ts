/**
 * Completion: Tab asks the kernel (or, inside a string that looks like a path, the file system)
 * for choices. One choice is inserted; several open a menu under the prompt that Tab and
 * Shift-Tab cycle, showing the choice in the editor; Enter keeps it, Esc puts the typed text back.
 */
import { useCallback, useState } from 'react';
import type { NotebookBackend } from '../backend.js';
import * as ed from '../keys/editor.js';
import { completionContext, pathCompletions } from '../session/completion.js';

export interface Menu {
  items: string[];
  /** The selected choice, -1 before the first Tab. */
  index: number;
  /** The part of the cursor's line the choices replace. */
  from: number;
  to: number;
  /** The editor as it was before the menu opened (Esc goes back to it). */
  original: ed.EditorState;
}

interface Options {
  backend: NotebookBackend;
  cwd: () => string;
  editorRef: { current: ed.EditorState };
  setEditor: (e: ed.EditorState) => void;
  setMessage: (text?: string) => void;
}

/** After this long without an answer, the status line says the kernel is still working on it. */
const SLOW_COMPLETION_MS = 400;
const STILL_COMPLETING = 'completing… (the kernel is still working on it; typing goes on)';

export function useCompletion({ backend, cwd, editorRef, setEditor, setMessage }: Options) {
  const [menu, setMenuState] = useState<Menu | undefined>();
  const [ref] = useState(() => ({ current: undefined as Menu | undefined }));
  const setMenu = useCallback(
    (next: Menu | undefined) => {
      ref.current = next;
      setMenuState(next);
    },
    [ref],
  );

  const show = useCallback(
    (m: Menu, index: number) => {
      const item = m.items[index] as string;
      setEditor(ed.replaceRange({ ...m.original }, m.from, m.to, item));
      setMenu({ ...m, index });
    },
    [setEditor, setMenu],
  );

  /** Tab (delta 1) or Shift-Tab (-1): cycle an open menu, else ask for completions. */
  const complete = useCallback(
    (delta: 1 | -1) => {
      const open = ref.current;
      if (open) {
        show(open, (open.index + delta + open.items.length) % open.items.length);
        return;
      }
      const editor = editorRef.current;
      const line = editor.lines[editor.row] ?? '';
      const context = completionContext(line, editor.col);
      if (context.kind === 'indent') {
        setEditor(ed.insert(editor, '    '));
        return;
      }
      const answer =
        context.kind === 'path'
          ? Promise.resolve(pathCompletions(context.text, cwd()))
          : backend
              .complete(ed.editorText(editor), ed.cursorOffset(editor))
              .then(({ matches, start, end }) => {
                const typed = end - start;
                return { items: matches, from: editor.col - typed, to: editor.col };
              });
      // A slow answer (jedi's first completion loads its caches) is waited for, and says so.
      const settled = sayWhileWaiting(() => editorRef.current === editor, setMessage);
      void answer.then(
        ({ items, from, to }) => {
          settled();
          // Typing went on meanwhile: this answer is about text that is gone.
          if (editorRef.current !== editor) return;
          const start = context.kind === 'path' ? context.from + from : from;
          const end = context.kind === 'path' ? context.from + to : to;
          if (!items.length) {
            // A kernel that runs a cell does not answer (as IPython's).
            const busy = context.kind !== 'path' && backend.kernelState() === 'busy';
            setMessage(busy ? 'no completions while a cell runs' : 'no completions');
            return;
          }
          setMessage();
          if (items.length === 1) {
            setEditor(ed.replaceRange(editor, start, end, items[0] as string));
            return;
          }
          // What every choice begins with is typed at once (as IPython does), and the menu opens.
          const typed = (editor.lines[editor.row] ?? '').slice(start, end);
          const prefix = commonPrefix(items);
          if (prefix.length > typed.length && prefix.startsWith(typed)) {
            const base = ed.replaceRange(editor, start, end, prefix);
            setEditor(base);
            setMenu({ items, index: -1, from: start, to: start + prefix.length, original: base });
            return;
          }
          setMenu({ items, index: -1, from: start, to: end, original: editor });
        },
        () => {
          settled();
          setMessage('no completions');
        },
      );
    },
    [backend, cwd, editorRef, ref, setEditor, setMenu, setMessage, show],
  );

  /** Enter: keep the choice shown. Esc: back to what was typed. */
  const close = useCallback(
    (keep: boolean) => {
      const open = ref.current;
      if (!open) return false;
      if (!keep) setEditor(open.original);
      setMenu(undefined);
      return true;
    },
    [ref, setEditor, setMenu],
  );

  return { menu, menuRef: ref, complete, close };
}

/**
 * Says on the status line that the kernel is still working when no answer came within
 * SLOW_COMPLETION_MS and the text is still the one asked about. Returns what the answer calls:
 * it ends the wait and takes the message away.
 */
function sayWhileWaiting(current: () => boolean, setMessage: (text?: string) => void): () => void {
  let answered = false;
  let waiting = false;
  const slow = setTimeout(() => {
    if (answered || !current()) return;
    waiting = true;
    setMessage(STILL_COMPLETING);
  }, SLOW_COMPLETION_MS);
  return () => {
    answered = true;
    clearTimeout(slow);
    if (waiting) setMessage();
  };
}

/** The longest start all `items` share, never half a surrogate pair. */
function commonPrefix(items: readonly string[]): string {
  let prefix = items[0] ?? '';
  for (const item of items) {
    let n = 0;
    while (n < prefix.length && n < item.length && prefix[n] === item[n]) n++;
    prefix = prefix.slice(0, n);
  }
  const last = prefix.charCodeAt(prefix.length - 1);
  return last >= 0xd800 && last <= 0xdbff ? prefix.slice(0, -1) : prefix;
}
