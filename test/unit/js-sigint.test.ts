/**
 * The js runner's SIGINT bookkeeping: a cell whose child process the same Ctrl-C ended (execSync)
 * can end before the watchdog's thread has taken the runner's own SIGINT in. The CI's
 * "Ctrl-C stops execSync()" case met this once under load; here the watchdog's lag is made
 * certain: its pending flag appears only on the fourth look.
 */
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);
const { createSigint } = require('../../src/js/sigint.cjs') as {
  createSigint: (deps: object) => {
    takePending: () => boolean;
    takeAfter: (err: unknown) => boolean;
  };
};

/** A watchdog binding whose SIGINT is seen from the `seenAt`-th stop on (0: never). */
function sigintWith(seenAt: number) {
  let stops = 0;
  const contextify = {
    startSigintWatchdog: () => true,
    stopSigintWatchdog: () => {
      stops += 1;
      return seenAt > 0 && stops >= seenAt;
    },
  };
  const sigint = createSigint({
    proc: { binding: () => contextify, on: () => {} },
    timers: {},
    membrane: { expose: (_: string, fn: unknown) => fn },
    frames: {},
    onSigint: () => {},
  });
  return { sigint, looks: () => stops };
}

describe('js runner: a SIGINT the watchdog takes in late', () => {
  it("a child's SIGINT death waits for the runner's pending SIGINT", () => {
    const { sigint } = sigintWith(4);
    expect(sigint.takeAfter(Object.assign(new Error('Command failed'), { signal: 'SIGINT' }))).toBe(true);
  });

  it('a command that exits 130 by itself is not waited for', () => {
    const { sigint, looks } = sigintWith(3);
    expect(sigint.takeAfter({ status: 130, signal: null })).toBe(false);
    expect(looks()).toBe(1);
  });

  it('any other error is not waited for: one look', () => {
    const { sigint, looks } = sigintWith(4);
    expect(sigint.takeAfter(new TypeError('x'))).toBe(false);
    expect(looks()).toBe(1);
    expect(
      sigint.takeAfter({
        get signal() {
          throw new Error('hostile');
        },
      }),
    ).toBe(false);
  });

  it('a child something else interrupted: no SIGINT came, and the cell is not cancelled', () => {
    const { sigint, looks } = sigintWith(0);
    expect(sigint.takeAfter({ signal: 'SIGINT' })).toBe(false);
    expect(looks()).toBeGreaterThan(1);
  });
});
