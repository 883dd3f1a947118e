/**
 * The notebook's keys (src/tui/hooks/useKeys.ts) on the App with a FakeBackend: what has the keys
 * (the prompt, a Ctrl-R search, the completion menu) decides what Ctrl-C, Enter, Up and Ctrl-D do.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentCell } from '../../src/tui/backend.js';
import { FakeBackend } from '../helpers/fakeBackend.js';
import { KEYS } from '../helpers/ink.js';
import { mounted, start } from './mountApp.js';

afterEach(() => {
  for (const h of mounted.splice(0)) h.unmount();
});

/** The prompt's rows as the screen shows them, from `In [n]:` down. */
const promptOf = (frame: string) => frame.slice(frame.lastIndexOf('In ['));

/** The notebook on a FakeBackend, once its prompt shows. */
async function atPrompt(backend = new FakeBackend()) {
  const started = start({}, {}, { backend });
  await started.h.waitFor((f) => f.includes('In [1]:'), 'the prompt');
  return started;
}

describe('useKeys: what has the keys', () => {
  it('Ctrl-C ends a Ctrl-R search, keeping the prompt as it was, and does not arm the exit', async () => {
    const { h, backend } = await atPrompt();
    await h.type('alpha = 1');
    await h.press(KEYS.enter);
    await h.waitFor((f) => f.includes('In [2]:'), 'the cell to run');
    await h.press('\x12'); // Ctrl-R
    await h.type('alp');
    await h.waitFor((f) => f.includes("(reverse-i-search)`alp': alpha = 1"), 'the search');
    await h.press(KEYS.ctrlC);
    await h.waitFor((f) => !f.includes('reverse-i-search'), 'the search to end');
    expect(promptOf(h.frame())).toMatch(/^In \[2\]:$/m);
    expect(h.frame()).not.toContain('Press Ctrl-C again to exit');
    expect(backend.interrupts).toBe(0);
  });

  it('Ctrl-C closes the completion menu and puts the text back; a second Ctrl-C only clears the prompt', async () => {
    const { h, exited } = await atPrompt();
    await h.type('value_');
    await h.press(KEYS.tab);
    await h.waitFor((f) => f.includes('value_two'), 'the menu');
    await h.press(KEYS.ctrlC);
    await h.waitFor((f) => !f.includes('value_two'), 'the menu to close');
    expect(promptOf(h.frame())).toMatch(/^In \[1\]: value_$/m);
    await h.press(KEYS.ctrlC);
    await h.waitFor((f) => /^In \[1\]:$/m.test(promptOf(f)), 'the prompt cleared');
    expect(exited()).toBe(0);
  });

  it('Up on a lower row of the prompt moves up a row; Enter there adds a line instead of running the cell', async () => {
    const { h, backend } = await atPrompt();
    await h.type('if x:');
    await h.press(KEYS.enter);
    await h.waitFor((f) => /In \[1\]: if x:\n\s+\.\.\.:$/m.test(f), 'the block open');
    await h.type('pass');
    await h.press(KEYS.up);
    await h.press(KEYS.enter);
    await h.type('#mid');
    await h.waitFor(
      (f) => /In \[1\]: if x:\n\s+\.\.\.: *#mid\n\s+\.\.\.: +pass$/m.test(f),
      'a line added in the middle',
    );
    expect(backend.ran).toEqual([]);
    // (the kernel was asked once, for the first line: the Enter in the middle asked nothing)
    expect(backend.asked).toEqual(['if x:']);
  });

  it('Ctrl-D with text deletes the character under the cursor; Ctrl-L clears the screen', async () => {
    const { h, exited } = await atPrompt();
    await h.type('abc');
    await h.press(KEYS.left);
    await h.press(KEYS.left);
    await h.press(KEYS.ctrlD);
    await h.waitFor((f) => /^In \[1\]: ac$/m.test(promptOf(f)), 'the character deleted');
    expect(exited()).toBe(0);
    const before = h.stdout.writes.length;
    await h.press('\x0c'); // Ctrl-L
    await h.waitFor(
      () => h.stdout.writes.slice(before).some((w) => w.includes('\x1b[2J')),
      'the screen cleared',
    );
  });
});

/** A followed agent's session (omp-eval attach): leaving the notebook leaves its kernels running. */
class DetachingBackend extends FakeBackend {
  readonly detaches = true;
  agentCells?: (cells: AgentCell[]) => void;
  onAgentCells(listener: (cells: AgentCell[]) => void) {
    this.agentCells = listener;
    return () => {
      this.agentCells = undefined;
    };
  }
}

const held = { 'wait()': { events: [], hold: true } };

/** Runs a held cell of the person's, checks that Ctrl-D is refused while it runs, then ends it. */
async function refusedWhileOwnCellRuns(
  h: Awaited<ReturnType<typeof atPrompt>>['h'],
  backend: FakeBackend,
  exited: () => number,
) {
  await h.type('wait()');
  await h.press(KEYS.enter);
  await h.waitFor(() => backend.state === 'busy', "the person's cell to run");
  await h.press(KEYS.ctrlD);
  await h.waitFor((f) => f.includes('A cell is running: Ctrl-C stops it; Ctrl-D exits after'), 'the refusal');
  expect(exited()).toBe(0);
  backend.finish();
}

describe('Ctrl-D on the empty prompt while a cell runs', () => {
  it('does not end the notebook, whose kernel would go with the cell, and says why', async () => {
    const backend = new FakeBackend(held);
    const { h, exited } = await atPrompt(backend);
    await refusedWhileOwnCellRuns(h, backend, exited);
    await h.waitFor((f) => f.includes('In [2]:'), 'the cell done');
    await h.press(KEYS.ctrlD);
    await h.waitFor(() => exited() === 1, 'the exit');
  });

  it("leaves a followed agent's session while only the agent's cell runs, not while the person's does", async () => {
    const backend = new DetachingBackend(held);
    const { h, exited } = await atPrompt(backend);
    await h.waitFor(() => backend.agentCells !== undefined, 'the subscription');
    // The person's own cell: its output would be lost to them.
    await refusedWhileOwnCellRuns(h, backend, exited);
    await h.waitFor(() => backend.state === 'idle', "the person's cell done");
    // The agent's cell runs on in its session: leaving loses nothing.
    const party = { by: 'agent' as const, call: 1, cell: 0, cells: 1 };
    backend.agentCells?.([{ code: 'wait()', language: 'py', party }]);
    await h.waitFor((f) => /agent #1 running/.test(f), "the agent's cell to run");
    await h.press(KEYS.ctrlD);
    await h.waitFor(() => exited() === 1, 'the detach');
    backend.finish();
  });
});
