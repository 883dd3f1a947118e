/**
 * The notebook's state behind a reducer whose actions apply at once and whose renders come at most
 * one a frame. Ink writes at most a frame every FRAME_MS, but React renders and Yoga lays out the
 * whole live region on every state change: an agent's quick calls (`omp-eval attach`) made several
 * a call, each a full render and layout, of which the terminal saw one in ten. A change after a
 * quiet frame renders at once (a key draws as soon as before); those that follow within the frame
 * render together at its end. Code that acts on the state (the cell runner picking the next cell)
 * reads `current()`, which is never behind.
 */
import { useCallback, useEffect, useRef, useState } from 'react';

/** Ink's own frame: `maxFps` 30, its default. */
const FRAME_MS = 34;

export function useFramedReducer<S, A>(
  reducer: (state: S, action: A) => S,
  initial: () => S,
  frameMs = FRAME_MS,
): [state: S, dispatch: (action: A) => void, current: () => S] {
  const store = useRef<S | undefined>(undefined);
  if (store.current === undefined) store.current = initial();
  const [, setFrame] = useState(0);
  const timer = useRef<NodeJS.Timeout | undefined>(undefined);
  const lastRender = useRef(Number.NEGATIVE_INFINITY);
  // What the last render showed: a frame's end with nothing newer renders nothing.
  const shown = useRef<S | undefined>(undefined);
  shown.current = store.current;
  useEffect(() => () => clearTimeout(timer.current), []);
  const current = useCallback(() => store.current as S, []);
  const dispatch = useCallback(
    (action: A) => {
      const next = reducer(store.current as S, action);
      if (next === store.current) return;
      store.current = next;
      if (timer.current) return; // (the frame's render, already due, shows it)
      const wait = lastRender.current + frameMs - performance.now();
      if (wait <= 0) {
        lastRender.current = performance.now();
        setFrame((n) => n + 1);
        return;
      }
      timer.current = setTimeout(() => {
        timer.current = undefined;
        if (store.current === shown.current) return;
        lastRender.current = performance.now();
        setFrame((n) => n + 1);
      }, wait);
    },
    [reducer, frameMs],
  );
  return [store.current, dispatch, current];
}
