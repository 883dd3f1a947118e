/**
 * set_next_input() and %load: the text a cell gives for the next prompt (IPython's terminal puts
 * it there). An empty prompt takes it; one the user has begun typing is left alone, and the text
 * waits in the history instead (Up at an empty prompt brings it back: Up after typed text looks
 * for entries that start with it), with a message saying so.
 */
import { useCallback } from 'react';
import * as ed from '../keys/editor.js';
import type { EditorStateHook } from './useEditorState.js';

const NEXT_INPUT_IN_HISTORY =
  'the prompt was not empty: the text for it is in the history (↑ at an empty prompt)';

export function useNextInput(
  editing: Pick<EditorStateHook, 'editorRef' | 'setEditor' | 'remember'>,
  setMessage: (text?: string) => void,
): (text: string) => void {
  const { editorRef, setEditor, remember } = editing;
  return useCallback(
    (text: string) => {
      const next = text.replace(/\s+$/, '');
      if (!next) return;
      if (!ed.editorText(editorRef.current).trim()) {
        setEditor(ed.fromText(next));
        return;
      }
      remember(next);
      setMessage(NEXT_INPUT_IN_HISTORY);
    },
    [editorRef, setEditor, remember, setMessage],
  );
}
