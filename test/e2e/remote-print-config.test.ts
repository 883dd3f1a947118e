/**
 * `omp-eval --jupyter URL --token T mcp --print-config claude` as a user runs it: the snippet holds
 * no token, and the server it starts, given JUPYTER_TOKEN the way Claude Code expands
 * `${JUPYTER_TOKEN}`, runs Python cells on the real Jupyter server and tells the model so.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.js';
import { type JupyterServer, startJupyterServer } from '../helpers/jupyter.js';
import { evalCell, startStdio, stopAll, textOf } from '../helpers/mcp.js';

let server: JupyterServer;

beforeAll(async () => {
  server = await startJupyterServer();
}, 90_000);
afterAll(async () => {
  await stopAll();
  await server?.stop();
});

describe('omp-eval mcp --jupyter --print-config', () => {
  it('prints a snippet without the token that starts a working server', async () => {
    const printed = await cli(
      [
        '--jupyter',
        `${server.url}?token=${server.token}`,
        '--token',
        server.token,
        'mcp',
        '--print-config',
        'claude',
      ],
      { env: { JUPYTER_TOKEN: '' } },
    );
    expect(printed.code, printed.stderr).toBe(0);
    expect(printed.stdout).not.toContain(server.token);
    expect(printed.stderr).not.toContain(server.token);
    expect(printed.stdout).not.toMatch(/token=/);
    expect(printed.stderr).toMatch(/set JUPYTER_TOKEN in the environment Claude Code starts from/);
    const entry = JSON.parse(printed.stdout).mcpServers['omp-eval'];
    // biome-ignore lint/suspicious/noTemplateCurlyInString: what Claude Code expands
    expect(entry.env).toEqual({ JUPYTER_TOKEN: '${JUPYTER_TOKEN}' });
    expect(entry.args.slice(1)).toEqual(['--jupyter', server.url, 'mcp']);

    // What Claude Code does with the entry: expand ${JUPYTER_TOKEN} from its environment.
    const env = {
      JUPYTER_TOKEN: String(entry.env.JUPYTER_TOKEN).replace(/\$\{JUPYTER_TOKEN\}/, server.token),
    };
    const { client } = await startStdio({ args: entry.args.slice(1), env });
    expect(textOf(await evalCell(client, '21 * 2'))).toBe('42');
    const { tools } = await client.listTools();
    const description = tools.find((t) => t.name === 'eval')?.description ?? '';
    expect(description).toMatch(
      new RegExp(
        `Python \\("py"\\) cells run in a kernel on the Jupyter server at 127\\.0\\.0\\.1:${server.port}, without the local sandbox`,
      ),
    );
    expect(description).not.toContain(server.token);
  }, 90_000);
});
