/**
 * Keys and commands: the editor, history (Up/Down, Ctrl-R), input() answers, Ctrl-C / Ctrl-D,
 * expanding output (Ctrl-O, Alt-Up/Down to pick a cell), and the `/` commands.
 */
import { type Key, useInput } from 'ink';
import { useCallback, useRef, useState } from 'react';
import { cellNeedsMoreInput, splitCells } from '../../eval/index.js';
import type { NotebookBackend } from '../backend.js';
import * as ed from '../lib/editor.js';
import { addToHistory, loadHistory, searchHistory } from '../lib/history.js';
import { saveSession } from '../lib/save.js';
import type { Notebook } from './useNotebook.js';

export const HELP = `Commands (type them at the prompt):
  /help              this help
  /restart           restart the kernel (its state is lost)
  /clear             clear the screen
  /save FILE         save the session as a "# %%" script, or as FILE.ipynb with outputs
  /exit              quit (also Ctrl-D on an empty prompt, or Ctrl-C twice)
Keys:
  Enter              run the cell when it is complete, else a new line
  Alt-Enter, Ctrl-J  new line without running
  Up / Down          move, or walk the history from the first / last line
  Ctrl-R             search the history
  Ctrl-O             expand or collapse the output of the selected cell (the latest by default)
  Alt-Up / Alt-Down  select an earlier / later cell for Ctrl-O
  Ctrl-C             interrupt the running cell; on the prompt, clear it
  Ctrl-L             clear the screen
Pasting a script with "# %%" lines runs each part as its own cell.`;

export interface KeysOptions {
  notebook: Notebook;
  backend: NotebookBackend;
  historyFile?: string;
  onExit: () => void;
  clearScreen: () => void;
}

export interface Keys {
  editor: ed.EditorState;
  inputValue: string;
  search?: { query: string; match?: string };
}

/** Text as typed or pasted: newlines as `\n`, other control characters dropped. */
function typable(input: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it drops
  return input.replace(/\r\n?/g, '\n').replace(/[\x00-\x08\x0b-\x1f\x7f]/g, '');
}

const PASTE_START = '[200~';
const PASTE_END = '[201~';

export function useKeys({ notebook, backend, historyFile, onExit, clearScreen }: KeysOptions): Keys {
  const { state, dispatch, submit, running } = notebook;
  // Keys can arrive faster than React re-renders: handlers read the latest values from refs, and
  // every change goes to the ref at once and to the state for the screen.
  const [editor, setEditorState] = useState(ed.emptyEditor);
  const editorRef = useRef(editor);
  const setEditor = useCallback((next: ed.EditorState | ((e: ed.EditorState) => ed.EditorState)) => {
    editorRef.current = typeof next === 'function' ? next(editorRef.current) : next;
    setEditorState(editorRef.current);
  }, []);
  const [inputValue, setInputState] = useState('');
  const inputRef = useRef('');
  const setInputValue = useCallback((next: string) => {
    inputRef.current = next;
    setInputState(next);
  }, []);
  const [search, setSearchState] = useState<{ query: string; index: number } | undefined>();
  const searchRef = useRef(search);
  const setSearch = useCallback((next: { query: string; index: number } | undefined) => {
    searchRef.current = next;
    setSearchState(next);
  }, []);
  const history = useRef<string[]>(historyFile ? loadHistory(historyFile) : []);
  const historyIndex = useRef<number | undefined>(undefined);
  const draft = useRef('');
  const pasting = useRef(false);

  const runCommand = useCallback(
    (line: string) => {
      const [name, ...args] = line.slice(1).trim().split(/\s+/);
      const arg = args.join(' ');
      switch (name) {
        case 'help':
        case '?':
          dispatch({ type: 'info', text: HELP });
          break;
        case 'restart':
          dispatch({ type: 'message', text: 'Restarting the kernel…' });
          void notebook.restart().then(() => {
            dispatch({ type: 'info', text: 'Kernel restarted: its state was lost.' });
            dispatch({ type: 'message' });
          });
          break;
        case 'clear':
          clearScreen();
          dispatch({ type: 'clear' });
          break;
        case 'save': {
          if (!arg) {
            dispatch({ type: 'info', text: 'usage: /save FILE.py or /save FILE.ipynb' });
            break;
          }
          try {
            const kind = saveSession(arg, state.cells, backend.version ?? '');
            dispatch({ type: 'info', text: `Saved the session as a ${kind}: ${arg}` });
          } catch (err) {
            dispatch({ type: 'info', text: `Could not save ${arg}: ${(err as Error).message}` });
          }
          break;
        }
        case 'exit':
        case 'quit':
          onExit();
          break;
        default:
          dispatch({ type: 'info', text: `Unknown command /${name ?? ''}. Type /help for the list.` });
      }
    },
    [backend, clearScreen, dispatch, notebook, onExit, state.cells],
  );

  const submitText = useCallback(
    (text: string) => {
      const code = text.replace(/\s+$/, '');
      if (!code.trim()) return;
      history.current = addToHistory(history.current, code, historyFile);
      historyIndex.current = undefined;
      setEditor(ed.emptyEditor());
      if (/^\/\w*/.test(code) && !code.includes('\n')) {
        runCommand(code);
        return;
      }
      // A pasted script with "# %%" markers ("// %%" in JavaScript) runs as one cell per part.
      const marker = backend.language === 'js' ? /^\/\/\s*%%/m : /^#\s*(%%|In\[)/m;
      const cells = marker.test(code) ? splitCells(code, backend.language) : [{ code }];
      submit(cells.map((c) => ({ code: c.code, ...('title' in c && c.title ? { title: c.title } : {}) })));
    },
    [historyFile, runCommand, setEditor, submit, backend],
  );

  const walkHistory = useCallback(
    (delta: number) => {
      const list = history.current;
      if (!list.length) return;
      if (historyIndex.current === undefined) {
        if (delta > 0) return;
        draft.current = ed.editorText(editorRef.current);
      }
      const from = historyIndex.current ?? list.length;
      const index = from + delta;
      if (index >= list.length) {
        historyIndex.current = undefined;
        setEditor(ed.fromText(draft.current));
        return;
      }
      if (index < 0) return;
      historyIndex.current = index;
      setEditor(ed.fromText(list[index] as string));
    },
    [setEditor],
  );

  const onKey = useCallback(
    (input: string, key: Key) => {
      const editor = editorRef.current;
      const search = searchRef.current;
      const inputValue = inputRef.current;
      // Bracketed paste: everything between the markers is text, newlines included.
      if (input === PASTE_START) {
        pasting.current = true;
        return;
      }
      if (input === PASTE_END) {
        pasting.current = false;
        return;
      }
      if (pasting.current) {
        setEditor((e) => ed.insert(e, key.return ? '\n' : typable(input)));
        return;
      }
      // Several Backspaces in one burst arrive as one string of DEL characters.
      if (input.length > 1 && /^[\x7f\b]+$/.test(input)) {
        let next = editorRef.current;
        for (let i = 0; i < input.length; i++) next = ed.backspace(next);
        setEditor(next);
        return;
      }

      if (key.ctrl && input === 'c') {
        if (running) {
          backend.interrupt();
          dispatch({
            type: 'message',
            text: 'Interrupting… (the kernel is killed if the cell does not stop in 5 s)',
          });
          return;
        }
        if (search) {
          setSearch(undefined);
          return;
        }
        if (ed.editorText(editor)) {
          setEditor(ed.emptyEditor());
          dispatch({ type: 'armExit', armed: false });
          return;
        }
        if (state.exitArmed) onExit();
        else dispatch({ type: 'armExit', armed: true });
        return;
      }
      if (state.exitArmed) dispatch({ type: 'armExit', armed: false });

      // input() in the running cell takes the keys.
      if (running?.input) {
        if (key.return) {
          backend.sendInput(inputValue);
          const shown = running.input.password ? '' : inputValue;
          dispatch({
            type: 'output',
            id: running.id,
            pieces: [{ kind: 'text', stream: 'stdout', text: `${running.input.prompt}${shown}\n` }],
          });
          setInputValue('');
          dispatch({ type: 'input', id: running.id });
        } else if (key.backspace || key.delete) setInputValue(inputValue.slice(0, -1));
        else if (!key.ctrl && !key.meta && input) setInputValue(inputValue + input);
        return;
      }

      if (search) {
        if (key.return || key.escape || key.leftArrow || key.rightArrow) {
          const match = search.index >= 0 ? history.current[search.index] : undefined;
          if (match !== undefined) setEditor(ed.fromText(match));
          setSearch(undefined);
        } else if (key.ctrl && input === 'r') {
          setSearch({ ...search, index: searchHistory(history.current, search.query, search.index) });
        } else if (key.backspace || key.delete) {
          const query = search.query.slice(0, -1);
          setSearch({ query, index: searchHistory(history.current, query) });
        } else if (!key.ctrl && !key.meta && input) {
          const query = search.query + input;
          setSearch({ query, index: searchHistory(history.current, query) });
        }
        return;
      }

      if (key.ctrl) {
        switch (input) {
          case 'd':
            if (!ed.editorText(editor)) onExit();
            return;
          case 'o':
            clearScreen();
            dispatch({ type: 'toggleExpand' });
            return;
          case 'l':
            clearScreen();
            dispatch({ type: 'clear' });
            return;
          case 'r':
            setSearch({ query: '', index: -1 });
            return;
          case 'j':
            setEditor((e) => ed.newline(e));
            return;
          case 'a':
            setEditor(ed.home);
            return;
          case 'e':
            setEditor(ed.end);
            return;
          case 'u':
            setEditor(ed.killToStart);
            return;
          case 'k':
            setEditor(ed.killToEnd);
            return;
          case 'w':
            setEditor(ed.deleteWord);
            return;
          default:
            return;
        }
      }
      if (key.meta && (key.upArrow || key.downArrow)) {
        dispatch({ type: 'select', delta: key.upArrow ? -1 : 1 });
        return;
      }
      if (key.return) {
        const text = ed.editorText(editor);
        const onLastLine = editor.row === editor.lines.length - 1;
        if (key.meta || !onLastLine || cellNeedsMoreInput(text, backend.language))
          setEditor(ed.newline(editor));
        else submitText(text);
        return;
      }
      if (key.upArrow) {
        if (editor.row === 0) walkHistory(-1);
        else setEditor(ed.move(editor, -1, 0));
        return;
      }
      if (key.downArrow) {
        if (editor.row === editor.lines.length - 1) walkHistory(1);
        else setEditor(ed.move(editor, 1, 0));
        return;
      }
      if (key.leftArrow) return setEditor(ed.move(editor, 0, -1));
      if (key.rightArrow) return setEditor(ed.move(editor, 0, 1));
      if (key.home) return setEditor(ed.home(editor));
      if (key.end) return setEditor(ed.end(editor));
      if (key.backspace || key.delete) return setEditor(ed.backspace(editor));
      if (key.tab) {
        const line = editor.lines[editor.row] ?? '';
        const before = line.slice(0, editor.col);
        if (!/[\w.]$/.test(before)) return setEditor(ed.insert(editor, '    '));
        const text = ed.editorText(editor);
        const cursor = editor.lines.slice(0, editor.row).reduce((n, l) => n + l.length + 1, 0) + editor.col;
        void backend.complete(text, cursor).then(({ matches, start, end }) => {
          // Typing went on meanwhile: this answer is about text that is gone.
          if (editorRef.current !== editor) return;
          if (!matches.length) return dispatch({ type: 'message', text: 'no completions' });
          const common = matches.reduce((a, b) => {
            let i = 0;
            while (i < a.length && a[i] === b[i]) i++;
            return a.slice(0, i);
          });
          const typed = end - start;
          if (common.length > typed) setEditor((e) => ed.insert(e, common.slice(typed)));
          if (matches.length > 1)
            dispatch({
              type: 'message',
              text: matches.slice(0, 12).join('  ') + (matches.length > 12 ? '  …' : ''),
            });
          else dispatch({ type: 'message' });
        });
        return;
      }
      if (key.escape || key.meta) return;
      if (input) {
        // Several characters at once without bracketed paste: a paste all the same.
        setEditor(ed.insert(editor, typable(input)));
      }
    },
    [
      backend,
      clearScreen,
      dispatch,
      onExit,
      running,
      setEditor,
      setInputValue,
      setSearch,
      state.exitArmed,
      submitText,
      walkHistory,
    ],
  );

  // The latest handler, called through a stable function: a key that arrives after a render but
  // before React re-subscribed must still see that render's state.
  const latest = useRef(onKey);
  latest.current = onKey;
  useInput(useCallback((input: string, key: Key) => latest.current(input, key), []));

  const match = search && search.index >= 0 ? history.current[search.index] : undefined;
  return {
    editor,
    inputValue,
    ...(search ? { search: { query: search.query, ...(match !== undefined ? { match } : {}) } } : {}),
  };
}
