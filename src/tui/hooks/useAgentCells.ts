/**
 * A followed agent's session (`omp-eval attach`) or a served notebook's agents (`/serve`): each
 * call's cells are queued as they come, marked as the agent's, and the cell runner replays them
 * through the backend like any other cell; the backend's notices are printed. When a followed
 * session ends, the notebook ends once the agent's cells that came before were shown.
 */
import { useEffect, useState } from 'react';
import type { NotebookBackend } from '../backend.js';
import type { Action, CellView } from '../state/reducer.js';

export function useAgentCells(
  backend: NotebookBackend,
  dispatch: (action: Action) => void,
  live: CellView[],
  onExit: () => void,
): void {
  const [ended, setEnded] = useState(false);
  useEffect(() => {
    if (!backend.onAgentCells) return;
    return backend.onAgentCells((cells) => {
      if (cells.length) dispatch({ type: 'submit', cells });
    });
  }, [backend, dispatch]);
  useEffect(() => backend.onEnded?.(() => setEnded(true)), [backend]);
  useEffect(() => backend.onNotice?.((text) => dispatch({ type: 'info', text })), [backend, dispatch]);
  const replaying = live.some((c) => c.party);
  useEffect(() => {
    if (!ended || replaying) return;
    // (after the transcript's print of the last cell, which it makes on the next turn)
    const timer = setImmediate(() => setImmediate(onExit));
    return () => clearImmediate(timer);
  }, [ended, replaying, onExit]);
}
