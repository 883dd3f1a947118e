/**
 * The notebook screen. Finished cells are printed once above the live region and kept as data;
 * the live region holds the running cell, the queued ones, the prompt (or input line), the
 * completion menu and the status line, sized by liveLayout to stay shorter than the terminal.
 */

import type { ReactNode } from 'react';
import { useCallback, useEffect, useMemo, useRef } from 'react';
import type { NotebookBackend } from './backend.js';
import { runCommandLine } from './commands/index.js';
import type { CommandContext } from './commands/types.js';
import { CellBlock, QueuedLine } from './components/CellBlock.js';
import { CompletionMenu, Editor, InputLine } from './components/Editor.js';
import { StatusLine, statusParts, statusText } from './components/StatusLine.js';
import { useAgentCells } from './hooks/useAgentCells.js';
import { useCellRunner } from './hooks/useCellRunner.js';
import { useCompletion } from './hooks/useCompletion.js';
import { type EditorStateHook, useEditorState } from './hooks/useEditorState.js';
import { useFramedReducer } from './hooks/useFramedReducer.js';
import { kernelInfoOf, useKernelStatus } from './hooks/useKernelStatus.js';
import { useKeys } from './hooks/useKeys.js';
import { useNextInput } from './hooks/useNextInput.js';
import { useTerminalSize } from './hooks/useTerminalSize.js';
import { Box, Text, useStdout } from './ink.js';
import { liveLayout } from './layout/liveLayout.js';
import type { ImageMode } from './rendering/images.js';
import { createPrinter, type Printer } from './rendering/printer.js';
import type { IdleCollector } from './runtime/memory.js';
import { initialState, nextCount, reducer, runningCell, type State, selectedCell } from './state/reducer.js';

export interface AppProps {
  backend: NotebookBackend;
  imageMode: ImageMode;
  color: boolean;
  historyFile?: string;
  onExit: () => void;
  /** The time, for Ctrl-C's windows and elapsed times (tests pass their own). */
  clock?: () => number;
  /** Told when cells run and when the notebook is idle again (its idle-time collection). */
  memory?: IdleCollector;
  /** Renders come at most one in this many ms (Ink's frame; tests pass their own). */
  frameMs?: number;
}

/** The state the notebook opens with: the backend's kernel, language, directory and mode. */
function startState(backend: NotebookBackend): State {
  return initialState({
    ...kernelInfoOf(backend, backend.kernelState()),
    language: backend.language,
    cwd: backend.cwd,
    mode: backend.mode,
    ...(backend.sandbox ? { sandbox: backend.sandbox } : {}),
    ...(backend.jupyter ? { jupyter: backend.jupyter } : {}),
  });
}

/** Clears the screen but not the scroll-back (the user's shell history stays). */
const CLEAR_SCREEN = '\x1b[2J\x1b[H';

export function App({
  backend,
  imageMode,
  color,
  historyFile,
  onExit,
  clock = Date.now,
  memory,
  frameMs,
}: AppProps): ReactNode {
  const { columns, rows, beforePrint, suspend } = useTerminalSize();
  const { write } = useStdout();
  const [state, dispatch, current] = useFramedReducer(reducer, () => startState(backend), frameMs);
  const startKernel = useKernelStatus(backend, dispatch);
  useAgentCells(backend, dispatch, state.live, onExit);
  const setMessage = useCallback(
    (text?: string) => dispatch({ type: 'message', ...(text ? { text } : {}) }),
    [dispatch],
  );
  const printInfo = useCallback((text: string) => dispatch({ type: 'info', text }), [dispatch]);
  const editing = useEditorState(historyFile, printInfo);
  const onNextInput = useNextInput(editing, setMessage);
  const runner = useCellRunner({
    backend,
    state,
    dispatch,
    imageMode,
    color,
    columns,
    startKernel,
    clock,
    onNextInput,
    current,
    ...(memory ? { memory } : {}),
  });
  const cwd = useRef(state.kernel.cwd);
  cwd.current = state.kernel.cwd;
  const completion = useCompletion({
    backend,
    cwd: () => cwd.current,
    editorRef: editing.editorRef,
    setEditor: editing.setEditor,
    setMessage,
  });

  const printer = useTranscript(state.done, { write, beforePrint, color, imageMode, columns });

  const clearScreen = useCallback(() => write(CLEAR_SCREEN), [write]);
  useKeys({
    state,
    current,
    dispatch,
    backend,
    runner,
    editing,
    completion,
    clock,
    onExit,
    clearScreen,
    suspend,
    showOutput: () => {
      const cell = selectedCell(current());
      if (cell) setImmediate(() => printer.printExpanded(cell));
      else setMessage('no finished cell to show');
    },
    runCommand: (line) =>
      void runCommandLine(line, {
        print: printInfo,
        setMessage,
        restartKernel: runner.restart,
        clearScreen,
        cells: () => current().done,

        exit: onExit,
        cwd: () => cwd.current,
        columns,
        ...backendContext(backend),
      }),
  });

  return (
    <LiveRegion
      state={state}
      editing={editing}
      menu={completion.menu}
      columns={columns}
      rows={rows}
      color={color}
      language={backend.language}
    />
  );
}

interface LiveRegionProps {
  state: State;
  editing: EditorStateHook;
  menu: ReturnType<typeof useCompletion>['menu'];
  columns: number;
  rows: number;
  color: boolean;
  language: NotebookBackend['language'];
}

/** The running cell, the queued ones, the prompt (or input line), the completion menu and the status line. */
function LiveRegion({ state, editing, menu, columns, rows, color, language }: LiveRegionProps): ReactNode {
  const running = runningCell(state);
  const queued = state.live.filter((c) => c.status === 'queued');
  const parts = statusParts(state.kernel, state.counter, columns, state.message);
  const layout = liveLayout({
    rows,
    columns,
    editorLines: editing.editor.lines.length,
    singleLinePrompt: Boolean(running?.input || editing.search),
    queued: queued.length,
    running: running !== undefined,
    menuItems: menu?.items.length ?? 0,
    statusText: statusText(parts),
  });

  return (
    <Box flexDirection="column">
      {running ? (
        <CellBlock
          cell={running}
          maxRows={layout.runningRows}
          {...(state.now !== undefined ? { now: state.now } : {})}
          color={color}
          count={nextCount(state)}
        />
      ) : null}
      {queued.slice(0, layout.queuedShown).map((cell) => (
        <QueuedLine key={cell.id} cell={cell} />
      ))}
      {layout.queuedRows > layout.queuedShown ? (
        <Text dimColor>{`… ${queued.length - layout.queuedShown} more queued`}</Text>
      ) : null}
      {running?.input ? (
        <InputLine
          prompt={running.input.prompt}
          value={editing.answer}
          password={running.input.password}
          columns={columns}
        />
      ) : (
        <Editor
          editor={editing.editor}
          counter={nextCount(state)}
          color={color}
          maxRows={layout.editorRows}
          columns={columns}
          language={language}
          {...(state.kernel.remoteLanguage ? { remoteLanguage: state.kernel.remoteLanguage } : {})}
          {...(editing.search ? { search: editing.search } : {})}
        />
      )}
      {menu && layout.menuRows ? (
        <CompletionMenu items={menu.items} index={menu.index} rows={layout.menuRows} />
      ) : null}
      <StatusLine
        parts={parts}
        kernel={state.kernel}
        columns={columns}
        {...(state.message ? { message: state.message } : {})}
      />
    </Box>
  );
}

/** Prints what finished since the last render, once, outside React's commit; the printer for Ctrl-O. */
function useTranscript(
  done: State['done'],
  opts: {
    write: (text: string) => void;
    /** Called before each print (see inkTerminal.ts). */
    beforePrint: () => void;
    color: boolean;
    imageMode: ImageMode;
    columns: number;
  },
): Printer {
  const { write, beforePrint, color, imageMode, columns } = opts;
  const columnsRef = useRef(columns);
  columnsRef.current = columns;
  const printer = useMemo(
    () =>
      createPrinter({
        write: (text) => {
          beforePrint();
          write(text);
        },
        color,
        imageMode,
        columns: () => columnsRef.current,
      }),
    [write, beforePrint, color, imageMode],
  );
  const printed = useRef(0);
  useEffect(() => {
    const fresh = done.slice(printed.current);
    printed.current = done.length;
    if (fresh.length) setImmediate(() => printer.print(fresh));
  }, [done, printer]);
  return printer;
}

/** What the commands take from the backend: the session, and `/serve` where it can serve its kernels. */
function backendContext(backend: NotebookBackend): Pick<CommandContext, 'session' | 'serve'> {
  const session = sessionOf(backend);
  return backend.serve
    ? { session, serve: (args) => backend.serve?.(args) ?? Promise.resolve('') }
    : { session };
}

/** What /version and /save tell about the session. */
function sessionOf(backend: NotebookBackend): CommandContext['session'] {
  return {
    language: backend.language,
    ...(backend.version && backend.language === 'py' ? { pythonVersion: backend.version } : {}),
    ...(backend.nodeVersion ? { nodeVersion: backend.nodeVersion } : {}),
    ...(backend.remote ? { remote: backend.remote } : {}),
  };
}
