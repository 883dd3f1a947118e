/**
 * The eval tool's description says what `%pip install` needs (issue 42, item 8): under the
 * default sandbox the network is off, and Debian's own Python is externally managed; it no longer
 * offers an install that cannot work.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS, type Settings } from '../../src/eval/settings.js';
import { toolsFor } from '../../src/modes/mcp/tools.js';

const description = (settings: Partial<Settings>) =>
  toolsFor({ ...DEFAULT_SETTINGS, ...settings } as Settings).find((t) => t.name === 'eval')?.description ??
  '';

describe('%pip install in the eval tool description', () => {
  it('under the sandbox with the network off: it cannot download, use what is installed', () => {
    const text = description({ 'sandbox.mode': 'workspace-write' });
    expect(text).not.toContain('%pip install,');
    expect(text).toMatch(
      /%pip install cannot download here: the sandbox keeps the network off \(only the user can allow it, with --allow-network\), so use the packages already installed/,
    );
    expect(text).toMatch(/Debian's \/usr\/bin\/python3\) is externally managed and refuses installs/);
  });

  it('with the network: it needs the network and a virtual environment', () => {
    for (const settings of [
      { 'sandbox.mode': 'workspace-write' as const, 'sandbox.allowNetwork': true },
      { 'sandbox.mode': 'off' as const },
    ]) {
      const text = description(settings);
      expect(text).toMatch(/%pip install needs the network; and it installs only into a virtual environment/);
      expect(text).not.toMatch(/cannot download/);
    }
  });

  it('on a Jupyter server: the server decides, nothing said of local interpreters', () => {
    const text = description({ 'sandbox.mode': 'workspace-write', 'jupyter.url': 'http://gpu:8888/' });
    expect(text).toMatch(/%pip install needs the network\./);
    expect(text).not.toMatch(/externally managed/);
  });
});
