/**
 * The notebook screen: finished cells in <Static> (printed once, then scroll-back), the running
 * and queued cells, the prompt and the status line in the live region, kept shorter than the
 * terminal so Ink never repaints the whole screen.
 */
import { Box, Static, Text, useStdout } from 'ink';
import type { ReactNode } from 'react';
import { useEffect, useMemo, useRef } from 'react';
import type { NotebookBackend } from './backend.js';
import { CellBlock } from './components/CellBlock.js';
import { Editor, InputLine } from './components/Editor.js';
import { StatusLine } from './components/StatusLine.js';
import { useKeys } from './hooks/useKeys.js';
import { useNotebook } from './hooks/useNotebook.js';
import { useTerminalSize } from './hooks/useTerminalSize.js';
import { type ImageMode, nativeImage } from './lib/images.js';
import { rowsOf } from './state/output.js';
import { FINISHED, selectedCell } from './state/reducer.js';

export interface AppProps {
  backend: NotebookBackend;
  imageMode: ImageMode;
  color: boolean;
  historyFile?: string;
  onExit: () => void;
}

const QUEUED_SHOWN = 3;
/** Clears the screen but not the scroll-back (the user's shell history stays). */
const CLEAR_SCREEN = '\x1b[2J\x1b[H';
const RESIZE_SETTLE_MS = 120;

export function App({ backend, imageMode, color, historyFile, onExit }: AppProps): ReactNode {
  const { columns, rows } = useTerminalSize();
  const { stdout } = useStdout();
  const notebook = useNotebook({ backend, imageMode, columns, color });
  const { state, now } = notebook;
  const keys = useKeys({
    notebook,
    backend,
    ...(historyFile ? { historyFile } : {}),
    onExit,
    clearScreen: () => stdout.write(CLEAR_SCREEN),
  });

  const finished = useMemo(
    () => state.cells.filter((c) => c.id >= state.shownFrom && (FINISHED.has(c.status) || c.kind === 'info')),
    [state.cells, state.shownFrom],
  );
  // Native image protocols cannot live inside Ink's frame: once a cell is printed, its images
  // are written after it, outside the frame.
  const drawn = useRef(new Set<number>());
  useEffect(() => {
    if (imageMode !== 'kitty' && imageMode !== 'iterm') return;
    for (const cell of finished) {
      if (drawn.current.has(cell.id)) continue;
      drawn.current.add(cell.id);
      for (const row of rowsOf(cell.output)) {
        if (row.kind === 'image') stdout.write(nativeImage(row.image, imageMode, Math.min(columns - 2, 80)));
      }
    }
  }, [finished, imageMode, stdout, columns]);
  // After a resize, Ink's frame no longer matches what is on screen: print it all again.
  const { dispatch } = notebook;
  const firstSize = useRef(true);
  // biome-ignore lint/correctness/useExhaustiveDependencies: columns and rows are what it reacts to
  useEffect(() => {
    if (firstSize.current) {
      firstSize.current = false;
      return undefined;
    }
    const timer = setTimeout(() => {
      stdout.write(CLEAR_SCREEN);
      dispatch({ type: 'reprint' });
    }, RESIZE_SETTLE_MS);
    return () => clearTimeout(timer);
  }, [columns, rows, stdout, dispatch]);
  const running = state.cells.find((c) => c.status === 'running');
  const queued = state.cells.filter((c) => c.status === 'queued');
  const selected = state.selected !== undefined ? selectedCell(state)?.id : undefined;

  // The live region: running cell, queued cells, prompt (or input line), status line.
  const editorRows = Math.max(3, rows - 10);
  const promptRows = running?.input || keys.search ? 1 : Math.min(keys.editor.lines.length, editorRows);
  const queuedRows = Math.min(queued.length, QUEUED_SHOWN) + (queued.length > QUEUED_SHOWN ? 1 : 0);
  const liveBudget = Math.max(3, rows - 2 - promptRows - queuedRows - 1);

  return (
    <>
      <Static key={state.staticKey} items={finished}>
        {(cell) => (
          <Box key={cell.id} flexDirection="column" marginBottom={1}>
            <CellBlock cell={cell} color={color} selected={cell.id === selected} />
          </Box>
        )}
      </Static>
      <Box flexDirection="column">
        {running ? <CellBlock cell={running} maxRows={liveBudget} now={now} color={color} /> : null}
        {queued.slice(0, QUEUED_SHOWN).map((cell) => (
          <CellBlock
            key={cell.id}
            cell={{ ...cell, code: cell.code.split('\n')[0] ?? '' }}
            maxRows={2}
            color={color}
          />
        ))}
        {queued.length > QUEUED_SHOWN ? (
          <Text dimColor>{`… ${queued.length - QUEUED_SHOWN} more queued`}</Text>
        ) : null}
        {running?.input ? (
          <InputLine
            prompt={running.input.prompt}
            value={keys.inputValue}
            password={running.input.password}
          />
        ) : (
          <Editor
            editor={keys.editor}
            counter={state.kernel.executionCount + 1}
            color={color}
            maxRows={editorRows}
            columns={columns}
            language={backend.language}
            {...(keys.search ? { search: keys.search } : {})}
          />
        )}
        <StatusLine
          kernel={state.kernel}
          columns={columns}
          {...(state.message ? { message: state.message } : {})}
        />
      </Box>
    </>
  );
}
