/**
 * Keys and text while a cell's input() waits for its answer: the answer is edited as the prompt
 * is, Up and Down recall earlier answers to the same prompt, Enter answers, Ctrl-D on an empty
 * answer ends the input (EOFError, as in IPython), and lines typed or pasted ahead answer the
 * input() calls that follow.
 */
import type { RefObject } from 'react';
import type { CellRunner } from '../hooks/useCellRunner.js';
import type { EditorStateHook } from '../hooks/useEditorState.js';
import type { CellView } from '../state/reducer.js';
import { AnswerHistory } from './answerHistory.js';
import * as ed from './editor.js';
import { commandOf } from './keyBindings.js';
import type { KeyEdits } from './keyEdits.js';

export interface AnswerDeps {
  editing: Pick<EditorStateHook, 'answerRef' | 'setAnswer'>;
  runner: Pick<CellRunner, 'answer'>;
}

export class AnswerKeys {
  /** Lines given to an input() answer after its own, for the input() calls after it. */
  private typedAhead?: { cell: number; lines: string[] };
  private readonly answers = new AnswerHistory();

  constructor(
    private readonly latest: RefObject<AnswerDeps>,
    private readonly edits: KeyEdits,
  ) {}

  /**
   * Text for input(): a newline in it answers, and the lines after it wait for the input() calls
   * that follow, as a terminal keeps what was typed ahead (a pasted block answers one call a line).
   */
  text(cell: CellView, text: string) {
    const { editing } = this.latest.current;
    const [first = '', ...rest] = text.split('\n');
    editing.setAnswer(ed.insert(editing.answerRef.current, first));
    if (!rest.length) return;
    this.typedAhead = { cell: cell.id, lines: rest }; // (the last is the start of a line not ended yet)
    this.key(cell, 'enter');
  }

  /** A new input() request: a line typed ahead answers it; the start of one waits in the answer. */
  requested(cell: CellView) {
    const ahead = this.typedAhead;
    // (what a cell typed ahead is not answered to the next cell)
    const line = ahead?.cell === cell.id ? ahead.lines.shift() : undefined;
    if (line === undefined) return;
    const { editing } = this.latest.current;
    editing.setAnswer(ed.insert(ed.emptyEditor(), line));
    if (ahead?.lines.length) this.key(cell, 'enter');
  }

  /**
   * Lines typed ahead that no input() call took, once their cell is over (`running` is the cell
   * running now, if any): for the prompt, as a terminal leaves them for the shell. Never lost.
   */
  leftover(running: number | undefined): string | undefined {
    const ahead = this.typedAhead;
    if (!ahead || ahead.cell === running) return undefined;
    this.typedAhead = undefined;
    const text = ahead.lines.join('\n').replace(/\n$/, '');
    return text || undefined;
  }

  /** A key while input() in `cell` has the keys. */
  key(cell: CellView, key: string) {
    const { editing, runner } = this.latest.current;
    const answer = ed.editorText(editing.answerRef.current);
    // Ctrl-D on an empty answer ends the input: input() raises EOFError, as in IPython.
    if (key === 'enter' || (key === 'ctrl+d' && !answer)) {
      if (key === 'enter') this.answers.remember(cell.input?.prompt ?? '', !!cell.input?.password, answer);
      else this.answers.reset();
      runner.answer(cell, key === 'enter' ? answer : null);
      editing.setAnswer(ed.emptyEditor());
      return;
    }
    const command = commandOf(key);
    if (command === 'historyPrevious' || command === 'historyNext') {
      const { prompt = '', password = false } = cell.input ?? {};
      const step = command === 'historyPrevious' ? -1 : 1;
      const recalled = this.answers.step(`${cell.id}:${prompt}`, prompt, password, answer, step);
      if (recalled !== undefined) editing.setAnswer(ed.insert(ed.emptyEditor(), recalled));
      return;
    }
    // (Ctrl-D in the middle of an answer deletes forward, as on the prompt)
    const next =
      command === 'deleteOrExit'
        ? ed.deleteForward(editing.answerRef.current)
        : command !== 'newline'
          ? this.edits.edit(command, editing.answerRef.current, !cell.input?.password)
          : undefined;
    if (next) editing.setAnswer(next);
  }
}
