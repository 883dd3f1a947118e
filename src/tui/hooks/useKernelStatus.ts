/**
 * The kernel's status on the status line: starts the kernel when the notebook opens and follows
 * its state through the backend's subscription (no polling here); prints what threads of earlier
 * cells write between cells.
 */
import { useCallback, useEffect } from 'react';
import type { NotebookBackend } from '../backend.js';
import { remoteLabel } from '../components/StatusLine.js';
import { OutputBuffer } from '../state/output.js';
import type { Action, NotebookKernelState } from '../state/reducer.js';

/** Output of background threads is gathered this long into one block. */
const BACKGROUND_MS = 100;

/**
 * What the status line shows of the kernel in `state`: all the backend knows of it now (the
 * kernel may be ready at the first frame: it starts while Ink loads).
 */
export function kernelInfoOf(backend: NotebookBackend, state: NotebookKernelState) {
  return {
    state,
    mode: backend.mode,
    ...(backend.python ? { python: backend.python } : {}),
    ...(backend.version ? { version: backend.version } : {}),
    ...(backend.env ? { env: backend.env } : {}),
    ...(backend.remote ? { remote: remoteLabel(backend.remote) } : {}),
    ...(backend.remote?.languageInfo?.name ? { remoteLanguage: backend.remote.languageInfo.name } : {}),
  };
}

export function useKernelStatus(backend: NotebookBackend, dispatch: (action: Action) => void): () => void {
  const kernelInfo = useCallback((state: NotebookKernelState) => kernelInfoOf(backend, state), [backend]);
  /** Starts a kernel now, so the status line shows it ready (or why it is not). */
  const startKernel = useCallback(() => {
    backend.start().then(
      () => dispatch({ type: 'kernel', info: kernelInfo(backend.kernelState()) }),
      (err: unknown) => {
        dispatch({ type: 'kernel', info: { state: 'dead' } });
        dispatch({ type: 'info', text: `The kernel could not be started: ${(err as Error).message}` });
      },
    );
  }, [backend, dispatch, kernelInfo]);

  useEffect(
    () => backend.onKernelState((state) => dispatch({ type: 'kernel', info: kernelInfo(state) })),
    [backend, dispatch, kernelInfo],
  );
  // biome-ignore lint/correctness/useExhaustiveDependencies: once, at mount
  useEffect(() => startKernel(), []);

  // Output that threads of earlier cells print between cells: a block of its own, each text in
  // its stream (a thread's traceback is stderr).
  useEffect(() => {
    let buffered: OutputBuffer | undefined;
    let timer: NodeJS.Timeout | undefined;
    const unsubscribe = backend.onBackground((stream, text) => {
      buffered ??= new OutputBuffer(() => ({ push() {}, end() {}, where: {} }));
      buffered.appendText(stream, text);
      timer ??= setTimeout(() => {
        if (buffered) dispatch({ type: 'background', output: buffered.snapshot() });
        buffered = undefined;
        timer = undefined;
      }, BACKGROUND_MS);
    });
    return () => {
      clearTimeout(timer);
      unsubscribe();
    };
  }, [backend, dispatch]);
  return startKernel;
}
