/** The status line says which sandbox the kernels run in (issue 19); nothing when there is none. */
import { afterEach, describe, expect, it } from 'vitest';
import { createExecutor } from '../../src/eval/index.js';
import { executorBackend } from '../../src/tui/backend.js';
import { FakeBackend } from '../helpers/fakeBackend.js';
import { mounted, start } from './mountApp.js';

afterEach(() => {
  for (const h of mounted.splice(0)) h.unmount();
});

class SandboxedBackend extends FakeBackend {
  readonly sandbox = 'sandbox workspace-write';
}

describe('status line: sandbox', () => {
  it('names the sandbox mode beside the kernel mode', async () => {
    const { h } = start({}, { columns: 120 }, { backend: new SandboxedBackend() });
    const frame = await h.waitFor((f) => f.includes('● idle'));
    expect(frame).toContain('│ session │ sandbox workspace-write │ [0]');
  });

  it('says nothing of a sandbox when there is none', async () => {
    const { h } = start({}, { columns: 120 });
    const frame = await h.waitFor((f) => f.includes('● idle'));
    expect(frame).toContain('│ session │ [0]');
    expect(frame).not.toContain('sandbox');
  });

  it("the notebook's backend takes the executor's sandbox", async () => {
    const boxed = createExecutor({ settings: { 'sandbox.mode': 'read-only', 'sandbox.allowNetwork': true } });
    const off = createExecutor({ settings: { 'sandbox.mode': 'off' } });
    try {
      expect((await executorBackend(boxed, { cwd: process.cwd() })).sandbox).toBe(
        'sandbox read-only +network',
      );
      expect((await executorBackend(off, { cwd: process.cwd() })).sandbox).toBeUndefined();
    } finally {
      await Promise.all([boxed.dispose(), off.dispose()]);
    }
  });

  it('with --jupyter, says the sandbox holds the js cells only and where the py cells run', async () => {
    const url = 'http://ann:pw@127.0.0.1:1/?token=secret';
    const boxed = createExecutor({ settings: { 'sandbox.mode': 'workspace-write', 'jupyter.url': url } });
    const off = createExecutor({ settings: { 'sandbox.mode': 'off', 'jupyter.url': url } });
    try {
      expect((await executorBackend(boxed, { cwd: process.cwd() })).sandbox).toBe(
        'sandbox workspace-write for js · py on 127.0.0.1:1, unsandboxed',
      );
      expect((await executorBackend(off, { cwd: process.cwd() })).sandbox).toBe(
        'py on 127.0.0.1:1, unsandboxed',
      );
    } finally {
      await Promise.all([boxed.dispose(), off.dispose()]);
    }
  });
});
