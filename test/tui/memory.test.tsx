import { afterEach, describe, expect, it } from 'vitest';
import { App } from '../../src/tui/App.js';
import { idleCollector } from '../../src/tui/runtime/memory.js';
import { FakeBackend } from '../helpers/fakeBackend.js';
import { mount } from '../helpers/ink.js';
import { mounted, run } from './mountApp.js';

afterEach(() => {
  for (const h of mounted.splice(0)) h.unmount();
});

describe('the notebook and its idle-time collection', () => {
  it('collects after cells ran and the notebook went idle, not at start', async () => {
    const backend = new FakeBackend({
      'print(1)': { events: [{ kind: 'stdout', text: '1\n' }] },
    });
    const calls: string[] = [];
    const memory = idleCollector(() => calls.push('collect'), 0);
    const spy = {
      busy: () => {
        calls.push('busy');
        memory.busy();
      },
      idle: () => {
        calls.push('idle');
        memory.idle();
      },
      dispose: () => memory.dispose(),
    };
    const h = mount(<App backend={backend} imageMode="off" color={false} onExit={() => {}} memory={spy} />);
    mounted.push(h);
    await h.waitFor((f) => f.includes('In [1]:'));
    await run(h, 'print(1)');
    await h.waitFor((f) => f.includes('In [2]:'));
    await h.waitFor(() => calls.includes('collect'), 'the collection after the cell');
    expect(calls[0]).toBe('idle'); // at start: idle, with nothing to collect
    expect(calls.indexOf('busy')).toBeGreaterThan(0);
    expect(calls.lastIndexOf('idle')).toBeGreaterThan(calls.indexOf('busy'));
    expect(calls.filter((c) => c === 'collect')).toHaveLength(1);
  });
});
