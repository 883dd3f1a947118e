/**
 * `omp-eval mcp --print-config CLIENT` and the working directory (issue 42, defect 5): a client
 * without MCP roots starts the server wherever it was started itself (often / or $HOME), so its
 * snippet carries an absolute --cwd; a client with roots gives the workspace itself.
 */
import { describe, expect, it } from 'vitest';
import { configSnippet, invocationFromArgv } from '../../src/modes/mcp/printConfig.js';

const NODE = '/usr/bin/node';
const argv = (...args: string[]) => [NODE, '/no/such/bin/omp-eval.js', ...args];
const argsOf = (_client: 'claude' | 'cursor' | 'gemini', snippet: string) =>
  JSON.parse(snippet).mcpServers['omp-eval'].args as string[];

describe('--print-config and the working directory', () => {
  const inv = invocationFromArgv(argv('mcp', '--print-config', 'codex'), NODE, {}, '/work/proj');

  it('gives Codex and Gemini CLI (no roots) an absolute --cwd: the folder it ran in', () => {
    expect(inv.cwd).toBe('/work/proj');
    const codex = configSnippet('codex', inv);
    expect(codex.snippet).toContain('args = ["/no/such/bin/omp-eval.js", "--cwd", "/work/proj", "mcp"]');
    expect(codex.where).toMatch(/Codex offers no MCP roots: the kernels work in \/work\/proj \(--cwd\)/);
    const gemini = configSnippet('gemini', inv);
    expect(argsOf('gemini', gemini.snippet)).toEqual([
      '/no/such/bin/omp-eval.js',
      '--cwd',
      '/work/proj',
      'mcp',
    ]);
  });

  it('leaves Claude Code and Cursor (roots) without it', () => {
    for (const client of ['claude', 'cursor'] as const) {
      const { snippet, where } = configSnippet(client, inv);
      expect(argsOf(client, snippet)).toEqual(['/no/such/bin/omp-eval.js', 'mcp']);
      expect(where).not.toMatch(/roots/);
    }
  });

  it('keeps a --cwd given, made absolute, and adds none', () => {
    const given = invocationFromArgv(argv('--cwd', 'sub', 'mcp'), NODE, {}, '/work/proj');
    expect(given.cwd).toBeUndefined();
    const { snippet } = configSnippet('gemini', given);
    expect(argsOf('gemini', snippet).filter((a) => a === '--cwd')).toHaveLength(1);
  });

  it('adds none to an HTTP snippet (the server runs where it was started)', () => {
    const http = { ...inv, url: 'http://127.0.0.1:8765/mcp' };
    expect(configSnippet('codex', http).snippet).not.toContain('--cwd');
  });
});
