import { describe, expect, it } from 'vitest';
import {
  type KernelEvent,
  type KernelState,
  KernelStateMachine,
  nextState,
  TRANSITIONS,
} from '../../src/eval/kernel/state.js';

const STATES = Object.keys(TRANSITIONS) as KernelState[];
const EVENTS: KernelEvent[] = ['ready', 'run', 'done', 'interrupt', 'asked', 'stop', 'exited'];

describe('the kernel state machine', () => {
  it('is the table of the architecture document', () => {
    const table = Object.fromEntries(
      STATES.map((s) => [s, Object.fromEntries(EVENTS.map((e) => [e, nextState(s, e) ?? '-']))]),
    );
    expect(table).toEqual({
      starting: {
        ready: 'idle',
        run: 'starting',
        done: 'starting',
        interrupt: '-',
        asked: '-',
        stop: 'stopping',
        exited: 'dead',
      },
      idle: {
        ready: '-',
        run: 'busy',
        done: '-',
        interrupt: '-',
        asked: '-',
        stop: 'stopping',
        exited: 'dead',
      },
      busy: {
        ready: '-',
        run: '-',
        done: 'idle',
        interrupt: 'interrupting',
        asked: '-',
        stop: 'stopping',
        exited: 'dead',
      },
      interrupting: {
        ready: '-',
        run: '-',
        done: 'idle',
        interrupt: 'interrupting',
        asked: 'busy',
        stop: 'stopping',
        exited: 'dead',
      },
      stopping: {
        ready: '-',
        run: '-',
        done: 'stopping',
        interrupt: '-',
        asked: '-',
        stop: 'stopping',
        exited: 'dead',
      },
      dead: { ready: '-', run: '-', done: '-', interrupt: '-', asked: '-', stop: '-', exited: '-' },
    });
  });

  it('every state but dead can end, and nothing leaves dead', () => {
    for (const state of STATES)
      expect(nextState(state, 'exited')).toBe(state === 'dead' ? undefined : 'dead');
    for (const event of EVENTS) expect(nextState('dead', event)).toBeUndefined();
  });

  it('publishes every change to subscribers, refuses events the table does not list, and unsubscribes', () => {
    const machine = new KernelStateMachine();
    const seen: string[] = [];
    const off = machine.onState((state, previous) => seen.push(`${previous}→${state}`));
    expect(machine.fire('run')).toBe(true); // the init cell: no change, nothing published
    expect(machine.fire('interrupt')).toBe(false);
    expect(machine.fire('ready')).toBe(true);
    expect(machine.fire('run')).toBe(true);
    expect(machine.fire('interrupt')).toBe(true);
    expect(machine.fire('done')).toBe(true);
    off();
    expect(machine.fire('stop')).toBe(true);
    expect(machine.state).toBe('stopping');
    expect(seen).toEqual(['starting→idle', 'idle→busy', 'busy→interrupting', 'interrupting→idle']);
  });
});
