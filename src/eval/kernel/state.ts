/**
 * The kernel's state machine, as a table: state + event → next state. `KernelStateMachine.fire`
 * is the only place a kernel's state changes, and every change is published to subscribers.
 *
 *   starting ──ready──► idle ──run──► busy ──done──► idle
 *                                       │
 *                                   interrupt
 *                                       ▼
 *                                 interrupting ──done──► idle
 *                                       │
 *                                     asked ──► busy
 *   starting | idle | busy | interrupting ──stop──► stopping
 *   any state but dead ──exited──► dead
 */

export type KernelState = 'starting' | 'idle' | 'busy' | 'interrupting' | 'stopping' | 'dead';

/**
 * - ready: the init request (cwd, env, prelude) ended ok
 * - run: a cell's execute request was sent
 * - done: the running cell's `done` frame arrived
 * - interrupt: SIGINT was sent (or is pending until `started`) for the running cell
 * - asked: the interrupted cell asked for input again (pdb's prompt after Ctrl-C): it is listening,
 *   so the interrupt is over without a kill
 * - stop: the host began ending the process (shutdown, a kill after an unanswered interrupt, an
 *   unreadable frame stream)
 * - exited: the process ended (or never started)
 */
export type KernelEvent = 'ready' | 'run' | 'done' | 'interrupt' | 'asked' | 'stop' | 'exited';

/** Events not listed for a state are refused (the state stays, fire() returns false). */
export const TRANSITIONS: Readonly<Record<KernelState, Readonly<Partial<Record<KernelEvent, KernelState>>>>> =
  {
    // The init request runs while starting: run and done keep the state.
    starting: { ready: 'idle', run: 'starting', done: 'starting', stop: 'stopping', exited: 'dead' },
    idle: { run: 'busy', stop: 'stopping', exited: 'dead' },
    busy: { done: 'idle', interrupt: 'interrupting', stop: 'stopping', exited: 'dead' },
    interrupting: {
      done: 'idle',
      interrupt: 'interrupting',
      asked: 'busy',
      stop: 'stopping',
      exited: 'dead',
    },
    // A cell may still end while the process is being stopped.
    stopping: { done: 'stopping', stop: 'stopping', exited: 'dead' },
    dead: {},
  };

/** The state after `event`, or undefined when the table refuses the event in `state`. */
export function nextState(state: KernelState, event: KernelEvent): KernelState | undefined {
  return TRANSITIONS[state][event];
}

export type StateListener = (state: KernelState, previous: KernelState) => void;

export class KernelStateMachine {
  private current: KernelState = 'starting';
  private readonly listeners = new Set<StateListener>();

  get state(): KernelState {
    return this.current;
  }

  /** Applies `event`; false when the table refuses it. Listeners hear every change of state. */
  fire(event: KernelEvent): boolean {
    const next = nextState(this.current, event);
    if (next === undefined) return false;
    const previous = this.current;
    this.current = next;
    if (next !== previous) for (const listener of [...this.listeners]) listener(next, previous);
    return true;
  }

  /** True once the state is idle (now, or before `deadline`); false if it ends or the time is up. */
  idleBy(deadline: number): Promise<boolean> {
    const settled = (state: KernelState) =>
      state === 'idle' ? true : state === 'stopping' || state === 'dead' ? false : undefined;
    const now = settled(this.current);
    if (now !== undefined) return Promise.resolve(now);
    return new Promise((resolve) => {
      const timer = setTimeout(() => finish(false), Math.max(0, deadline - Date.now()));
      const unsubscribe = this.onState((state) => {
        const answer = settled(state);
        if (answer !== undefined) finish(answer);
      });
      const finish = (answer: boolean) => {
        clearTimeout(timer);
        unsubscribe();
        resolve(answer);
      };
    });
  }

  /** Calls `listener` on every change of state; returns the function that unsubscribes it. */
  onState(listener: StateListener): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }
}
