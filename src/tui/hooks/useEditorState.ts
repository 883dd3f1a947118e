/**
 * The prompt's state: the cell being typed, the input() answer being typed, the Ctrl-R search and
 * the history. Keys can arrive faster than React re-renders, so every change goes to a ref at
 * once (handlers read the refs) and to React state for the screen.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import * as ed from '../keys/editor.js';
import { addToHistory, loadHistory, searchHistory } from '../session/history.js';

export interface Search {
  query: string;
  /** Index of the match in the history, -1 for none. */
  index: number;
  /** Nothing (earlier) matches the query: the last match stays, as in readline. */
  failed?: boolean;
}

/** A value with a ref that is always current, and a setter that updates both. */
function useCurrent<T>(initial: T | (() => T)) {
  const [value, setState] = useState(initial);
  const ref = useRef(value);
  const set = useCallback((next: T | ((current: T) => T)) => {
    ref.current = typeof next === 'function' ? (next as (current: T) => T)(ref.current) : next;
    setState(ref.current);
  }, []);
  return [value, ref, set] as const;
}

export function useEditorState(historyFile?: string, notify?: (message: string) => void) {
  const [editor, editorRef, setEditor] = useCurrent<ed.EditorState>(ed.emptyEditor);
  const [answer, answerRef, setAnswer] = useCurrent<ed.EditorState>(ed.emptyEditor);
  const [search, searchRef, setSearch] = useCurrent<Search | undefined>(undefined);
  // Read once, not on every render (useRef's argument is evaluated each time). A notice about the
  // file is shown once mounted (not dispatched while rendering).
  const [{ loaded, notices }] = useState(() => {
    const found: string[] = [];
    return { loaded: historyFile ? loadHistory(historyFile, (m) => found.push(m)) : [], notices: found };
  });
  useEffect(() => {
    for (const message of notices) notify?.(message);
  }, [notices, notify]);
  const history = useRef<string[]>(loaded);
  const historyIndex = useRef<number | undefined>(undefined);
  const draft = useRef('');
  /** The text before the cursor when a walk through the history began: what entries start with. */
  const prefix = useRef('');

  const remember = useCallback(
    (code: string) => {
      history.current = addToHistory(history.current, code, historyFile, notify);
      historyIndex.current = undefined;
    },
    [historyFile, notify],
  );

  /** An empty prompt, and Up starts again from the latest history entry. */
  const clearEditor = useCallback(() => {
    historyIndex.current = undefined;
    draft.current = '';
    setEditor(ed.emptyEditor());
  }, [setEditor]);

  /**
   * Up / Down from the first / last line: the previous / next history entry that starts with the
   * text before the cursor when the walk began (IPython's history search; all of them when it was
   * empty). Down past the newest brings back what was typed.
   */
  const walkHistory = useCallback(
    (delta: number) => {
      const list = history.current;
      if (!list.length) return;
      if (historyIndex.current === undefined) {
        if (delta > 0) return;
        const editor = editorRef.current;
        draft.current = ed.editorText(editor);
        prefix.current = draft.current.slice(0, ed.cursorOffset(editor));
      }
      const index = nextMatch(list, historyIndex.current ?? list.length, delta, prefix.current);
      if (index >= list.length) {
        historyIndex.current = undefined;
        setEditor(ed.fromText(draft.current));
      } else if (index >= 0) {
        historyIndex.current = index;
        setEditor(ed.fromText(list[index] as string));
      }
    },
    [editorRef, setEditor],
  );

  const searchFor = useCallback(
    (query: string, from?: number) => {
      const index = searchHistory(history.current, query, from);
      const previous = searchRef.current?.index ?? -1;
      setSearch(index >= 0 || !query ? { query, index } : { query, index: previous, failed: true });
    },
    [searchRef, setSearch],
  );

  /** Ends the search, taking its match into the editor when `take`. */
  const endSearch = useCallback(
    (take: boolean) => {
      const current = searchRef.current;
      const match = current && current.index >= 0 ? history.current[current.index] : undefined;
      if (take && match !== undefined) setEditor(ed.fromText(match));
      setSearch(undefined);
    },
    [searchRef, setEditor, setSearch],
  );

  const match = search && search.index >= 0 ? history.current[search.index] : undefined;
  return {
    editor,
    editorRef,
    setEditor,
    clearEditor,
    answer,
    answerRef,
    setAnswer,
    search: search
      ? {
          query: search.query,
          ...(match !== undefined ? { match } : {}),
          ...(search.failed ? { failed: true } : {}),
        }
      : undefined,
    searchRef,
    searchFor,
    endSearch,
    remember,
    walkHistory,
  };
}

export type EditorStateHook = ReturnType<typeof useEditorState>;

/**
 * The entry a step of `delta` from `from` reaches among those that start with `prefix`: -1 when
 * none is older, `list.length` (the draft) past the newest.
 */
function nextMatch(list: readonly string[], from: number, delta: number, prefix: string): number {
  for (let i = from + delta; i >= 0 && i < list.length; i += delta) {
    if ((list[i] as string).startsWith(prefix)) return i;
  }
  return delta > 0 ? list.length : -1;
}
