/**
 * `omp-eval mcp --jupyter URL --token T --print-config CLIENT`: the snippet (often committed, and
 * readable from the sandbox) never holds the token or a password; the server gets the token from
 * JUPYTER_TOKEN, passed on from the client's environment in that client's own syntax.
 */
import { describe, expect, it } from 'vitest';
import { CLIENTS, configSnippet, invocationFromArgv } from '../../src/modes/mcp/printConfig.js';

const TOKEN = 'c0ffee5ecret99';
const PASSWORD = 'hunter2-pw';
const NODE = '/usr/bin/node';
const argv = (...args: string[]) => [NODE, '/no/such/bin/omp-eval.js', ...args];

describe('--print-config with a Jupyter server', () => {
  it('leaves --token, the URL token and the URL password out of the command line', () => {
    for (const args of [
      ['--jupyter', 'http://gpu:8888/', '--token', TOKEN, 'mcp', '--print-config', 'claude'],
      [`--jupyter=http://gpu:8888/?token=${TOKEN}`, 'mcp', '--print-config=claude'],
      ['--jupyter', `http://ann:${PASSWORD}@gpu:8888/`, `--token=${TOKEN}`, 'mcp', '--print-config', 'codex'],
    ]) {
      const inv = invocationFromArgv(argv(...args), NODE, {});
      expect(inv.args).toEqual(['/no/such/bin/omp-eval.js', '--jupyter', 'http://gpu:8888/', 'mcp']);
      expect(inv.jupyterToken).toBe('dropped');
    }
  });

  it("passes JUPYTER_TOKEN on in each client's syntax, and never writes the token", () => {
    const inv = invocationFromArgv(
      argv('--jupyter', `http://ann:${PASSWORD}@gpu:8888/?token=${TOKEN}`, '--token', TOKEN, 'mcp'),
      NODE,
      {},
    );
    const expected = {
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the client expands it
      claude: '"JUPYTER_TOKEN": "${JUPYTER_TOKEN}"',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the client expands it
      cursor: '"JUPYTER_TOKEN": "${env:JUPYTER_TOKEN}"',
      gemini: '"JUPYTER_TOKEN": "$JUPYTER_TOKEN"',
      codex: 'env_vars = ["JUPYTER_TOKEN"]',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the client expands it
      vscode: '"JUPYTER_TOKEN": "${env:JUPYTER_TOKEN}"',
      // (Claude Desktop expands no variables: the note says to add the token to its own file)
      'claude-desktop': '"mcpServers"',
    };
    for (const client of CLIENTS) {
      const { snippet, where } = configSnippet(client, inv);
      expect(snippet).toContain(expected[client]);
      for (const secret of [TOKEN, PASSWORD, 'token=', 'ann']) {
        expect(snippet).not.toContain(secret);
        expect(where).not.toContain(secret);
      }
      expect(where).toMatch(
        client === 'claude-desktop'
          ? /not in the snippet.*Claude Desktop passes on no variables of its own: add "env": \{"JUPYTER_TOKEN"/
          : /token \(or password\) on this command line is not in the snippet.*set JUPYTER_TOKEN in the environment/,
      );
    }
    const claude = JSON.parse(configSnippet('claude', inv).snippet).mcpServers['omp-eval'];
    expect(claude.args).toContain('http://gpu:8888/');
  });

  it('a token only in JUPYTER_TOKEN is passed on too; without a token nothing changes', () => {
    const fromEnv = invocationFromArgv(argv('--jupyter', 'http://gpu:8888/', 'mcp'), NODE, {
      JUPYTER_TOKEN: TOKEN,
    });
    expect(fromEnv.jupyterToken).toBe('env');
    const { snippet, where } = configSnippet('gemini', fromEnv);
    expect(snippet).toContain('"JUPYTER_TOKEN": "$JUPYTER_TOKEN"');
    expect(snippet).not.toContain(TOKEN);
    expect(where).toMatch(
      /The snippet holds no Jupyter token: set JUPYTER_TOKEN in the environment Gemini CLI starts from/,
    );

    const open = invocationFromArgv(argv('--jupyter', 'http://gpu:8888/', 'mcp'), NODE, {});
    expect(open.jupyterToken).toBeUndefined();
    expect(configSnippet('claude', open).snippet).not.toContain('JUPYTER_TOKEN');
    const local = invocationFromArgv(argv('mcp'), NODE, { JUPYTER_TOKEN: TOKEN });
    expect(local.jupyterToken).toBeUndefined();
  });

  it('the HTTP form tells the user to set JUPYTER_TOKEN where the server starts', () => {
    const inv = invocationFromArgv(argv('--jupyter', 'http://gpu:8888/', '--token', TOKEN, 'mcp'), NODE, {});
    inv.url = 'http://127.0.0.1:8765/mcp';
    const { snippet, where } = configSnippet('claude', inv);
    expect(snippet).not.toContain(TOKEN);
    expect(snippet).not.toContain('JUPYTER_TOKEN');
    expect(where).toMatch(/set JUPYTER_TOKEN in the environment you start the server in/);
  });
});
