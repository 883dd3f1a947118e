/**
 * Keys: raw input from Ink's stdin, named by parseKey, looked up in the key bindings, and run
 * against the prompt, the input() answer, the search or the completion menu, whichever has them.
 */

import { type RefObject, useEffect, useRef, useState } from 'react';
import { type Completeness, hasCellMarkers, needsMoreLines, splitCells } from '../../eval/index.js';
import type { NotebookBackend } from '../backend.js';
import { isCommandLine } from '../commands/index.js';
import { useStdin } from '../ink.js';
import { AnswerKeys } from '../keys/answerKeys.js';
import { ARMED_MS, ctrlC } from '../keys/ctrlC.js';
import * as ed from '../keys/editor.js';
import { commandOf, type KeyCommand } from '../keys/keyBindings.js';
import { KeyEdits } from '../keys/keyEdits.js';
import { isKill } from '../keys/killBuffer.js';
import { droppingCommand, type NodeReplDeps, nodeReplCommand } from '../keys/nodeRepl.js';
import { type KeyEvent, keyEvents } from '../keys/parseKey.js';
import { PASTE_END, PASTE_START, Paste, pasteSize } from '../keys/paste.js';
import { type Action, INTERRUPTING_MESSAGE, runningCell, type State } from '../state/reducer.js';
import type { CellRunner } from './useCellRunner.js';
import type { useCompletion } from './useCompletion.js';
import type { EditorStateHook } from './useEditorState.js';

export interface KeysOptions {
  state: State;
  /** The state as the last action left it: what keys act on (`state`, rendered, trails it by up to a frame). */
  current?: () => State;
  dispatch: (action: Action) => void;
  backend: NotebookBackend;
  runner: CellRunner;
  editing: EditorStateHook;
  completion: ReturnType<typeof useCompletion>;
  clock: () => number;
  onExit: () => void;
  clearScreen: () => void;
  /** Ctrl-Z: stops the notebook until `fg`; false when it cannot. */
  suspend: () => boolean;
  /** Prints every kept row of a finished cell below the transcript. */
  showOutput: () => void;
  runCommand: (line: string) => void;
}

const stateOf = (o: KeysOptions): State => o.current?.() ?? o.state;

/** A key, typed text, or the lines of a bracketed paste. */
type InputEvent = KeyEvent | { lines: string[] };

/** What leaves IPython's terminal shell, typed as a cell of its own. */
const EXITERS = new Set(['exit', 'quit', 'exit()', 'quit()']);
/** A paste this large says on the status line how far it has come, every PROGRESS_MS. */
const PROGRESS_FROM = 1024 * 1024;
const PROGRESS_MS = 250;

/**
 * What the keys do. One instance lives for the notebook's life; `latest` holds the current render's
 * options, so that handlers always see the current state.
 */
class KeyHandlers {
  /** A bracketed paste being received. */
  private paste: Paste | undefined;
  private pasteShownAt: number | undefined;
  /** Enter is waiting for the kernel's answer: keys typed meanwhile wait, in order, behind it. */
  private deciding = false;
  /** Keys not handled yet, from `next` on (a queue: a burst of thousands of lines is linear). */
  private queue: InputEvent[] = [];
  private next = 0;
  private readonly edits = new KeyEdits();
  private readonly kills = this.edits.kills;
  private armedAt: number | undefined;
  /** input() in the running cell has the keys. */
  readonly answering: AnswerKeys;
  private disarmTimer: NodeJS.Timeout | undefined;

  constructor(private readonly latest: RefObject<KeysOptions>) {
    this.answering = new AnswerKeys(latest, this.edits);
  }

  submit(text: string) {
    const { editing, runCommand, runner, backend } = this.latest.current;
    const code = text.replace(/\s+$/, '');
    if (!code.trim()) return;
    editing.remember(code);
    editing.setEditor(ed.emptyEditor());
    if (isCommandLine(code)) {
      runCommand(code);
      return;
    }
    // IPython's exit and quit (also called): the notebook ends, as /exit. In JavaScript, Node's
    // REPL commands (.exit, .help, .load FILE, .save FILE, ...).
    const typed = code.trim();
    if (backend.language === 'py' && EXITERS.has(typed)) return runCommand('/exit');
    if (backend.language === 'js' && nodeReplCommand(typed, this.replDeps())) return;
    // A pasted script with "# %%" markers ("// %%" in JavaScript) runs as one cell per part.
    const cells = hasCellMarkers(code, backend.language) ? splitCells(code, backend.language) : [{ code }];
    runner.submit(
      cells.map((c) => ({ code: c.code, ...('title' in c && c.title ? { title: c.title } : {}) })),
    );
  }

  private replDeps(): NodeReplDeps {
    const { runCommand, runner, dispatch, backend } = this.latest.current;
    const state = stateOf(this.latest.current);
    return {
      cwd: state.kernel.cwd,
      jsCells: () =>
        state.done
          .filter((c) => c.kind !== 'info' && (c.language ?? backend.language) === 'js')
          .map((c) => c.code.replace(/^\s*%%(js|javascript)[^\n]*\n/, '')),
      runCommand,
      run: (code, title) => runner.submit([{ code, title }]),
      // (Printed into the session, as `node` prints them: a status-line message would vanish at
      // the next key.)
      message: (text) => dispatch({ type: 'info', text }),
    };
  }

  ctrlC() {
    const o = this.latest.current;
    const action = ctrlC({
      now: o.clock(),
      running: runningCell(stateOf(o)) !== undefined,
      ...(o.runner.lastInterrupt() !== undefined
        ? { lastInterrupt: o.runner.lastInterrupt() as number }
        : {}),
      ...(this.armedAt !== undefined ? { armedAt: this.armedAt } : {}),
      searching: o.editing.searchRef.current !== undefined,
      menuOpen: o.completion.menuRef.current !== undefined,
      promptEmpty: !ed.editorText(o.editing.editorRef.current),
    });
    if (action !== 'arm' && action !== 'exit') this.disarm();
    switch (action) {
      case 'interrupt': {
        const asking = runningCell(stateOf(o));
        if (asking?.input) {
          o.runner.abandonInput(asking, ed.editorText(o.editing.answerRef.current));
          o.editing.setAnswer(ed.emptyEditor());
        }
        o.runner.interrupt();
        o.dispatch({ type: 'message', text: INTERRUPTING_MESSAGE });
        return;
      }
      case 'endSearch':
        return o.editing.endSearch(false);
      case 'closeMenu':
        o.completion.close(false);
        return;
      case 'clearPrompt':
        return o.editing.clearEditor();
      case 'arm':
        this.armedAt = o.clock();
        o.dispatch({ type: 'armExit', armed: true });
        clearTimeout(this.disarmTimer);
        this.disarmTimer = setTimeout(() => this.disarm(), ARMED_MS);
        return;
      case 'exit':
        return o.onExit();
      default:
        return; // absorbed: part of the interrupt just made
    }
  }

  disarm() {
    clearTimeout(this.disarmTimer);
    if (this.armedAt === undefined) return;
    this.armedAt = undefined;
    this.latest.current.dispatch({ type: 'armExit', armed: false });
  }

  searchKey(key: string) {
    const { editing } = this.latest.current;
    const search = editing.searchRef.current;
    if (!search) return;
    if (key === 'enter' || key === 'escape' || key === 'left' || key === 'right') editing.endSearch(true);
    else if (key === 'ctrl+r') editing.searchFor(search.query, search.index);
    else if (key === 'backspace') editing.searchFor(search.query.slice(0, -1));
  }

  key(key: string) {
    const o = this.latest.current;
    const named = commandOf(key);
    if (!isKill(named) && named !== 'yank') this.kills.other();
    if (key === 'ctrl+c') return this.ctrlC();
    this.disarm();
    // (Ctrl-Z suspends whatever has the keys, as a terminal's input() and readline's search do)
    if (commandOf(key) === 'suspend') return this.command('suspend');
    const running = runningCell(stateOf(o));
    if (running?.input) return this.answering.key(running, key);
    if (o.editing.searchRef.current) return this.searchKey(key);
    const command = commandOf(key);
    if (o.completion.menuRef.current) {
      if (command === 'complete') return o.completion.complete(1);
      if (command === 'completePrevious') return o.completion.complete(-1);
      if (command === 'submit') return void o.completion.close(true);
      if (command === 'escape') return void o.completion.close(false);
      o.completion.close(true);
    }
    if (command) this.command(command);
  }

  command(command: KeyCommand) {
    const o = this.latest.current;
    const { editing } = o;
    const editor = editing.editorRef.current;
    const next = this.edits.edit(command, editor);
    if (next) return editing.setEditor(next);
    this.kills.other();
    switch (command) {
      case 'submit':
        return this.enter(editor);
      case 'deleteOrExit':
        if (!ed.editorText(editor)) {
          // As IPython: not while a cell runs (its kernel and its output would go with it). A
          // followed agent's session runs on without the notebook: leaving it while only the
          // agent's cells run or wait loses nothing.
          const persons = stateOf(o).live.some(
            (c) => !c.party && (c.status === 'running' || c.status === 'queued'),
          );
          if (runningCell(stateOf(o)) && (persons || !o.backend.detaches))
            return o.dispatch({
              type: 'message',
              text: 'A cell is running: Ctrl-C stops it; Ctrl-D exits after',
            });
          return o.onExit();
        }
        return editing.setEditor(ed.deleteForward(editor));
      case 'historyPrevious':
        return editor.row === 0 ? editing.walkHistory(-1) : editing.setEditor(ed.move(editor, -1, 0));
      case 'historyNext':
        return editor.row === editor.lines.length - 1
          ? editing.walkHistory(1)
          : editing.setEditor(ed.move(editor, 1, 0));
      case 'historySearch':
        return editing.searchFor('');
      case 'complete':
        return o.completion.complete(1);
      case 'showOutput':
        return o.showOutput();
      case 'selectEarlier':
        return o.dispatch({ type: 'select', delta: -1 });
      case 'selectLater':
        return o.dispatch({ type: 'select', delta: 1 });
      case 'clearScreen':
        return o.clearScreen();
      case 'suspend':
        if (!o.suspend())
          o.dispatch({ type: 'message', text: 'Ctrl-Z: no job control here to suspend the notebook' });
        return;
      default:
        return;
    }
  }

  /**
   * Enter at the end of the prompt: the kernel says whether the cell is whole (run it) or needs
   * more lines (a new line, indented as it says). Inside the text it always adds a line.
   */
  enter(editor: ed.EditorState) {
    const { editing, backend } = this.latest.current;
    const text = ed.editorText(editor);
    if (editor.row !== editor.lines.length - 1) return editing.setEditor(ed.newline(editor));
    if (!text.trim() || isCommandLine(text)) return this.submit(text);
    const dropped = backend.language === 'js' ? droppingCommand(editor.lines) : undefined;
    if (dropped) {
      // (Printed, as the other dot-commands' answers; Up brings the cell back, as node's history.)
      editing.remember(editor.lines.slice(0, -1).join('\n'));
      editing.setEditor(ed.emptyEditor());
      return this.latest.current.dispatch({
        type: 'info',
        text: `${dropped}: the cell being typed was dropped (Up brings it back)`,
      });
    }
    this.deciding = true;
    void backend
      .isComplete(text)
      .catch((): Completeness => ({ status: 'complete' }))
      .then((answer) => {
        this.deciding = false;
        if (needsMoreLines(answer)) editing.setEditor(ed.insert(editor, `\n${answer.indent ?? ''}`));
        else this.submit(text);
        this.drain();
      });
  }

  /**
   * Key and text events in order. Those that come while Enter waits for the kernel's answer wait
   * behind it, whatever the kernel is doing: keys typed after an Enter belong to the next cell.
   */
  events(list: InputEvent[]) {
    for (const event of list) this.queue.push(event);
    this.drain();
  }

  private drain() {
    while (!this.deciding && this.next < this.queue.length) {
      const event = this.queue[this.next++] as InputEvent;
      if ('key' in event) this.key(event.key);
      else this.text('lines' in event ? event.lines : event.text);
    }
    if (this.next === this.queue.length) {
      this.queue = [];
      this.next = 0;
    }
  }

  /** Text typed, or the lines of a paste. */
  text(text: string | string[]) {
    const o = this.latest.current;
    const { editing } = o;
    this.disarm();
    this.kills.other();
    const joined = () => (typeof text === 'string' ? text : text.join('\n'));
    const running = runningCell(stateOf(o));
    if (running?.input) return this.answering.text(running, joined());
    const search = editing.searchRef.current;
    if (search) return editing.searchFor(search.query + joined());
    o.completion.close(true);
    const editor = editing.editorRef.current;
    editing.setEditor(
      typeof text === 'string' ? ed.type(editor, text, o.backend.language) : ed.insertLines(editor, text),
    );
  }

  input(raw: string) {
    // Bracketed paste: everything between the markers is text, newlines included, taken in once.
    if (this.paste) return this.pasteInput(this.paste, raw);
    if (raw === PASTE_START) {
      this.paste = new Paste();
      return;
    }
    if (raw === PASTE_END) return;
    this.events(keyEvents(raw));
  }

  private pasteInput(paste: Paste, raw: string) {
    const { dispatch, clock } = this.latest.current;
    if (raw === PASTE_END) {
      this.paste = undefined;
      if (paste.cancelled) return;
      if (this.pasteShownAt !== undefined) dispatch({ type: 'message' });
      this.pasteShownAt = undefined;
      const lines = paste.take();
      if (lines.length > 1 || lines[0]) this.events([{ lines }]);
      return;
    }
    if (paste.cancelled) return;
    paste.add(raw);
    if (paste.cancelled) {
      // Ctrl-C pressed while the terminal was still sending the paste: none of it goes in.
      this.pasteShownAt = undefined;
      this.disarm();
      dispatch({ type: 'message', text: 'paste cancelled' });
      return;
    }
    const now = clock();
    if (
      paste.size >= PROGRESS_FROM &&
      (this.pasteShownAt === undefined || now - this.pasteShownAt >= PROGRESS_MS)
    ) {
      this.pasteShownAt = now;
      dispatch({ type: 'message', text: `pasting… ${pasteSize(paste.size)} (Ctrl-C cancels)` });
    }
  }

  /** Ends the armed exit's timer (the notebook is closing). */
  dispose(): void {
    clearTimeout(this.disarmTimer);
  }
}

export function useKeys(opts: KeysOptions): void {
  const latest = useRef(opts);
  latest.current = opts;
  const [handlers] = useState(() => new KeyHandlers(latest));
  const asking = runningCell(opts.state);
  const asked = asking?.input;
  // biome-ignore lint/correctness/useExhaustiveDependencies: each new request (its prompt shown) counts once
  useEffect(() => {
    if (asking && asked) handlers.answering.requested(asking);
  }, [asked, handlers]);
  const runningId = asking?.id;
  useEffect(() => {
    const rest = handlers.answering.leftover(runningId);
    const { editing } = latest.current;
    if (rest) editing.setEditor(ed.insert(editing.editorRef.current, rest));
  }, [runningId, handlers]);

  // Ink's raw input events (private: docs/ink.md), each escape sequence an event of its own.
  const { internal_eventEmitter: input, setRawMode, isRawModeSupported } = useStdin();
  useEffect(() => {
    if (isRawModeSupported) setRawMode(true);
    const onInput = (raw: string) => handlers.input(raw);
    input.on('input', onInput);
    return () => {
      input.off('input', onInput);
      if (isRawModeSupported) setRawMode(false);
      handlers.dispose();
    };
  }, [input, setRawMode, isRawModeSupported, handlers]);
}
