import { afterEach, describe, expect, it } from 'vitest';
import { TIMEOUT_KILLED_NOTICE, TIMEOUT_NOTICE } from '../../src/eval/index.js';
import { notebookNotice } from '../../src/tui/session/messages.js';
import { count, mounted, run, start } from './mountApp.js';

afterEach(() => {
  for (const h of mounted.splice(0)) h.unmount();
});

describe('messages for a person', () => {
  it('never shows the agent advice of a timeout', async () => {
    const { h } = start({
      slow: {
        events: [{ kind: 'notice', text: TIMEOUT_NOTICE(1) }],
        result: { status: 'cancelled', timedOut: true },
      },
    });
    await run(h, 'slow');
    const frame = await h.waitFor((f) => f.includes('timed out') && f.includes('In [2]:'));
    expect(frame).not.toContain('reset: true');
    expect(frame).toContain('Timed out after 1 s: the cell was interrupted; the kernel keeps its state.');
    expect(notebookNotice(TIMEOUT_KILLED_NOTICE)).not.toMatch(/reset|next call/);
  });

  it("says in a person's words that a cell ended its kernel (os._exit)", () => {
    expect(
      notebookNotice(
        "The Python kernel exited while running this cell (exit code 3): the cell's code ended the process (os._exit(), or exit() in native code), so the cell was not run again. The next cell starts a new kernel: earlier state is gone.",
      ),
    ).toBe('The cell ended the Python kernel (exit code 3): its state is lost. A fresh kernel is starting.');
  });

  it('says once that a kernel was killed after the interrupt', async () => {
    const { h } = start({
      spin: {
        events: [
          {
            kind: 'notice',
            text: 'The kernel did not respond to the interrupt and was killed; it will be recreated on the next run.',
          },
        ],
        result: { status: 'cancelled', kernelKilled: true },
      },
    });
    await run(h, 'spin');
    const frame = await h.waitFor((f) => f.includes('kernel killed') && f.includes('In [2]:'));
    expect(count(frame, 'killed')).toBe(2); // the header and the one notice
    expect(frame).not.toContain('died');
    expect(frame).not.toContain('next run');
  });

  it('/restart during a cell says one thing: the kernel restarted', async () => {
    const { h, backend } = start({ 'while True: pass': { events: [], hold: true } });
    backend.restart = async () => {
      backend.restarts++;
      backend.emit({ kind: 'notice', text: 'The kernel was shut down while this cell was running.' });
      backend.finish({ status: 'error', exitCode: null });
    };
    await run(h, 'while True: pass');
    await h.waitFor((f) => f.includes('running'));
    await run(h, '/restart');
    const frame = await h.waitFor((f) => f.includes('Kernel restarted') && f.includes('cancelled'));
    expect(frame).not.toContain('shut down');
    expect(frame).not.toContain('died');
    expect(count(frame, 'Kernel restarted: its state was lost.')).toBe(1);
  });

  it("hides getpass's warning that input may be echoed: the notebook masks it", async () => {
    const { h, backend } = start({
      'getpass.getpass()': {
        events: [
          { kind: 'stderr', text: 'Warning: Password input may be echoed.\n' },
          { kind: 'input_request', prompt: 'Password: ', password: true },
        ],
        hold: true,
      },
    });
    await run(h, 'getpass.getpass()');
    await h.waitFor((f) => f.includes('Password:'));
    await h.type('s3cret');
    await h.waitFor((f) => f.includes('Password: ••••••'));
    expect(h.frame()).not.toContain('echoed');
    expect(h.frame()).not.toContain('s3cret');
    backend.finish();
  });

  it('fits its hints in 80 columns', async () => {
    const { h, backend } = start({ 'while True: pass': { events: [], hold: true } }, { columns: 80 });
    backend.interrupt = () => {
      backend.interrupts++;
    };
    await run(h, 'while True: pass');
    await h.waitFor((f) => f.includes('running'));
    await h.press('\x03');
    await h.waitFor((f) => f.includes('Interrupting'));
    for (const line of h.screen().split('\n')) expect(line.length).toBeLessThanOrEqual(80);
    expect(h.screen()).toContain('Interrupting… (killed after 5 s)');
    backend.finish();
  });
});
