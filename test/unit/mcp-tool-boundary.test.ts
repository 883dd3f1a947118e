/**
 * The eval tool's description tells the model the boundary that applies to each language: with
 * --jupyter the Python cells run on the Jupyter server, outside the local sandbox, and only the
 * JavaScript cells run in it.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS, type Settings } from '../../src/eval/settings.js';
import { toolsFor } from '../../src/modes/mcp/tools.js';

const description = (settings: Partial<Settings>) =>
  toolsFor({ ...DEFAULT_SETTINGS, ...settings } as Settings).find((t) => t.name === 'eval')?.description ??
  '';

describe('the eval tool describes where each language runs', () => {
  it('without --jupyter: the sandbox bounds every cell', () => {
    const text = description({ 'sandbox.mode': 'workspace-write' });
    expect(text).toMatch(/Sandbox \(workspace-write\): cells and the processes they start can write only in/);
    expect(text).toMatch(/the network is off/);
    expect(text).not.toMatch(/Jupyter server|local sandbox/);
  });

  it('with --jupyter and a sandbox: Python on the server without it, JavaScript in it', () => {
    const text = description({
      'sandbox.mode': 'workspace-write',
      'jupyter.url': 'http://ann:hunter2-pw@gpu:8888/?token=c0ffee5ecret99',
    });
    expect(text).toMatch(
      /Python \("py"\) cells run in a kernel on the Jupyter server at gpu:8888, without the local sandbox/,
    );
    expect(text).toMatch(/its files, its network/);
    expect(text).toMatch(
      /JavaScript \("js"\) cells run on this machine, in the local sandbox\. For JavaScript cells only: Sandbox \(workspace-write\)/,
    );
    // The sandbox's sentence never stands where it could be read as covering the Python cells.
    expect(text.indexOf('Sandbox (workspace-write)')).toBeGreaterThan(
      text.indexOf('For JavaScript cells only'),
    );
    expect(text).not.toMatch(/hunter2|c0ffee|ann@/);
  });

  it('with --jupyter and no sandbox: neither language is said to be sandboxed', () => {
    const text = description({ 'sandbox.mode': 'off', 'jupyter.url': 'https://hub.example.org/user/ann/' });
    expect(text).toMatch(/on the Jupyter server at hub\.example\.org\/user\/ann, without the local sandbox/);
    expect(text).toMatch(/JavaScript \("js"\) cells run on this machine, without a sandbox/);
    expect(text).not.toMatch(/Sandbox \(/);
  });
});
