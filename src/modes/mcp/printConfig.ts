/**
 * `omp-eval mcp --print-config CLIENT`: the configuration snippet that makes a client start this
 * server (stdout), and where it goes (stderr). Nothing is written into other programs' files.
 * Snippets hold no secrets: they are pasted into files that get committed (`.mcp.json` at the
 * project root) and that a sandboxed cell can read. A Jupyter token is left out of the command
 * line and the URL and read by the server from JUPYTER_TOKEN, which the snippet passes on from the
 * client's environment in the client's own syntax. test/unit/mcp-print-config-schemas.test.ts
 * holds each snippet to the format its client documents.
 */
import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { hasCredentials, redactUrl } from '../../eval/index.js';
import { HttpOptionError } from './httpOptions.js';

export const CLIENTS = ['claude', 'claude-desktop', 'codex', 'cursor', 'gemini', 'vscode'] as const;
export type ClientName = (typeof CLIENTS)[number];

const SERVER_NAME = 'omp-eval';
/** Clients that cut tool calls short get room for the longest cell timeout (3600 s). */
const TOOL_TIMEOUT_S = 3700;
/** Claude Code's tool timeout: an environment variable of its own, in milliseconds. */
export const CLAUDE_TOOL_TIMEOUT = { env: { MCP_TOOL_TIMEOUT: String(TOOL_TIMEOUT_S * 1000) } };

export interface Invocation {
  /** The server over stdio: a command and its arguments. */
  command: string;
  args: string[];
  /** Or the server over HTTP, already running at this URL (token in OMP_EVAL_MCP_TOKEN). */
  url?: string;
  /**
   * Why the server needs JUPYTER_TOKEN from the client's environment: a credential on the command
   * line (--token, the URL's `?token=` or password) was left out, or JUPYTER_TOKEN is set here.
   */
  jupyterToken?: 'dropped' | 'env';
  /**
   * The absolute directory --print-config ran in, when the command line has no --cwd: the
   * snippets of clients without MCP roots pass it as --cwd (such a client starts the server
   * wherever it was started itself, often / or the home folder).
   */
  cwd?: string;
}

/**
 * Clients that offer MCP roots, the workspace of a session (documented by each; Codex, Gemini CLI
 * and Claude Desktop do not).
 */
const ROOTS: Record<ClientName, boolean> = {
  claude: true,
  cursor: true,
  vscode: true,
  codex: false,
  gemini: false,
  'claude-desktop': false,
};

/** The variable the server reads the Jupyter token from (src/eval/remote/factory.ts). */
const JUPYTER_TOKEN_VAR = 'JUPYTER_TOKEN';

/** Flags whose value is a path, made absolute (the client starts the server elsewhere). */
const PATH_FLAGS = new Set(['--cwd', '--python']);

/**
 * How this very command line starts the server: node and the launcher by absolute path (a client
 * started from a desktop may not have node on its PATH), with the same flags, minus --print-config,
 * --token and the credentials in the --jupyter URL.
 */
export function invocationFromArgv(
  argv: string[],
  execPath = process.execPath,
  env: NodeJS.ProcessEnv = process.env,
  cwd?: string,
): Invocation {
  const [, script = 'omp-eval', ...rest] = argv;
  const args: string[] = [];
  let jupyter = false;
  let dropped = false;
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i] as string;
    const [flag, inline] = arg.split(/=(.*)/s, 2) as [string, string | undefined];
    if (flag === '--print-config') {
      if (inline === undefined) i++;
      continue;
    }
    if (flag === '--token') {
      if (inline === undefined) i++;
      dropped = true;
      continue;
    }
    if (flag === '--jupyter') {
      const url = inline ?? rest[++i] ?? '';
      if (hasCredentials(url)) dropped = true;
      jupyter = true;
      args.push(flag, redactUrl(url));
      continue;
    }
    if (PATH_FLAGS.has(flag)) {
      const value = inline ?? rest[++i] ?? '';
      const absolute = flag === '--python' && !value.includes('/') ? value : resolve(value);
      args.push(flag, absolute);
      continue;
    }
    args.push(arg);
  }
  let launcher = script;
  try {
    launcher = realpathSync(script);
  } catch {
    // keep it as given
  }
  const jupyterToken = dropped ? 'dropped' : jupyter && env[JUPYTER_TOKEN_VAR] ? 'env' : undefined;
  return {
    command: execPath,
    args: [launcher, ...args],
    ...(jupyterToken ? { jupyterToken } : {}),
    ...(cwd !== undefined && !args.includes('--cwd') ? { cwd: resolve(cwd) } : {}),
  };
}

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;
const toml = (value: string | string[]) => JSON.stringify(value);
/** Claude Code expands `${VAR}` in headers from its environment, Cursor `${env:VAR}`. */
// biome-ignore lint/suspicious/noTemplateCurlyInString: the client expands it, not us
const TOKEN_REF = '${OMP_EVAL_MCP_TOKEN}';
const AUTH_HEADER = { Authorization: `Bearer ${TOKEN_REF}` };
// biome-ignore lint/suspicious/noTemplateCurlyInString: the client expands it, not us
const CURSOR_AUTH_HEADER = { Authorization: 'Bearer ${env:OMP_EVAL_MCP_TOKEN}' };
/** VS Code asks for the token once (a password input) and keeps it in its secret storage. */
const VSCODE_TOKEN_INPUT = {
  type: 'promptString',
  id: 'omp-eval-token',
  description: 'The bearer token of omp-eval mcp --http (OMP_EVAL_MCP_TOKEN)',
  password: true,
};

/**
 * How each client passes JUPYTER_TOKEN on from its own environment to the server it starts, as
 * each documents it: Claude Code expands `${VAR}` in .mcp.json, Cursor and VS Code `${env:VAR}`
 * in mcp.json, Gemini CLI `$VAR` in settings.json; Codex passes the variables `env_vars` lists.
 * Claude Desktop expands nothing (jupyterNote says what to do).
 */
const FORWARDED_TOKEN: Record<Exclude<ClientName, 'codex' | 'claude-desktop'>, string> = {
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the client expands it, not us
  claude: '${JUPYTER_TOKEN}',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the client expands it, not us
  cursor: '${env:JUPYTER_TOKEN}',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the client expands it, not us
  vscode: '${env:JUPYTER_TOKEN}',
  gemini: '$JUPYTER_TOKEN',
};

/** The snippet (for stdout) and where to put it (for stderr), with what to set for a Jupyter token. */
export function configSnippet(client: ClientName, given: Invocation): { snippet: string; where: string } {
  const withCwd = !given.url && !ROOTS[client] && given.cwd !== undefined;
  const [launcher = '', ...rest] = given.args;
  const inv = withCwd ? { ...given, args: [launcher, '--cwd', given.cwd as string, ...rest] } : given;
  const { snippet, where } = clientSnippet(client, inv);
  const notes = [where];
  if (withCwd)
    notes.push(
      `${CLIENT_NAMES[client]} offers no MCP roots: the kernels work in ${given.cwd} (--cwd); run --print-config in the project's folder, or pass --cwd, for another.`,
    );
  if (inv.jupyterToken) notes.push(jupyterNote(client, inv));
  return { snippet, where: notes.join('\n') };
}

/** What the user must do for the Jupyter token, which no snippet holds. */
function jupyterNote(client: ClientName, inv: Invocation): string {
  const left =
    inv.jupyterToken === 'dropped'
      ? 'The Jupyter token (or password) on this command line is not in the snippet, which may be committed: '
      : 'The snippet holds no Jupyter token: ';
  const from = inv.url
    ? `set ${JUPYTER_TOKEN_VAR} in the environment you start the server in.`
    : client === 'claude-desktop'
      ? `Claude Desktop passes on no variables of its own: add "env": {"${JUPYTER_TOKEN_VAR}": "<the token>"} to the entry in your claude_desktop_config.json (a file of yours, outside any project).`
      : `set ${JUPYTER_TOKEN_VAR} in the environment ${CLIENT_NAMES[client]} starts from; the snippet passes it on to the server.`;
  return `${left}${from}`;
}

const CLIENT_NAMES: Record<ClientName, string> = {
  claude: 'Claude Code',
  'claude-desktop': 'Claude Desktop',
  codex: 'Codex',
  cursor: 'Cursor',
  gemini: 'Gemini CLI',
  vscode: 'VS Code',
};

function clientSnippet(client: ClientName, inv: Invocation): { snippet: string; where: string } {
  const forward = inv.jupyterToken !== undefined;
  const stdio = {
    command: inv.command,
    args: inv.args,
    ...(forward && client !== 'codex' && client !== 'claude-desktop'
      ? { env: { [JUPYTER_TOKEN_VAR]: FORWARDED_TOKEN[client] } }
      : {}),
  };
  switch (client) {
    case 'claude':
      return {
        snippet: json({
          mcpServers: {
            [SERVER_NAME]: inv.url
              ? { type: 'http', url: inv.url, headers: AUTH_HEADER }
              : { type: 'stdio', ...stdio },
          },
        }),
        where: `${
          inv.url
            ? `Claude Code: merge this into .mcp.json at the project root (Claude Code expands ${TOKEN_REF} from its environment).`
            : `Claude Code: merge this into .mcp.json at the project root, or run: claude mcp add ${SERVER_NAME} -- ${[inv.command, ...inv.args].map(shellWord).join(' ')}`
        }\nFor long cells, Claude Code's tool timeout (MCP_TOOL_TIMEOUT, in ms) must outlast them: merge ${JSON.stringify(CLAUDE_TOOL_TIMEOUT)} into .claude/settings.json (or start claude with MCP_TOOL_TIMEOUT=${CLAUDE_TOOL_TIMEOUT.env.MCP_TOOL_TIMEOUT} in its environment).`,
      };
    case 'claude-desktop':
      if (inv.url)
        throw new HttpOptionError(
          "Claude Desktop's claude_desktop_config.json starts local (stdio) servers only, and its remote connectors cannot send this server's bearer token: run --print-config claude-desktop without --http.",
        );
      return {
        snippet: json({ mcpServers: { [SERVER_NAME]: stdio } }),
        where:
          'Claude Desktop: merge this into claude_desktop_config.json (Settings > Developer > Edit Config; ~/Library/Application Support/Claude/ on macOS, %APPDATA%\\Claude\\ on Windows), then restart Claude Desktop.',
      };
    case 'vscode':
      return {
        snippet: json(
          inv.url
            ? {
                inputs: [VSCODE_TOKEN_INPUT],
                servers: {
                  [SERVER_NAME]: {
                    type: 'http',
                    url: inv.url,
                    headers: { Authorization: `Bearer \${input:${VSCODE_TOKEN_INPUT.id}}` },
                  },
                },
              }
            : { servers: { [SERVER_NAME]: { type: 'stdio', ...stdio } } },
        ),
        where: `VS Code: merge this into .vscode/mcp.json in the workspace (or the user mcp.json: MCP: Open User Configuration).${inv.url ? ' VS Code asks for the token once and keeps it.' : ''}`,
      };
    case 'codex': {
      const lines = [`[mcp_servers.${JSON.stringify(SERVER_NAME)}]`];
      if (inv.url) lines.push(`url = ${toml(inv.url)}`, 'bearer_token_env_var = "OMP_EVAL_MCP_TOKEN"');
      else
        lines.push(
          `command = ${toml(inv.command)}`,
          `args = [${inv.args.map(toml).join(', ')}]`,
          ...(forward ? [`env_vars = [${toml(JUPYTER_TOKEN_VAR)}]`] : []),
          'startup_timeout_sec = 30',
        );
      lines.push(`tool_timeout_sec = ${TOOL_TIMEOUT_S}`);
      return {
        snippet: `${lines.join('\n')}\n`,
        where: 'Codex: add this to ~/.codex/config.toml (or .codex/config.toml of a trusted project).',
      };
    }
    case 'cursor':
      return {
        snippet: json({
          mcpServers: { [SERVER_NAME]: inv.url ? { url: inv.url, headers: CURSOR_AUTH_HEADER } : stdio },
        }),
        where:
          'Cursor: merge this into ~/.cursor/mcp.json (all projects) or .cursor/mcp.json (this project).',
      };
    case 'gemini':
      return {
        snippet: json({
          mcpServers: {
            [SERVER_NAME]: {
              ...(inv.url
                ? { httpUrl: inv.url, headers: { Authorization: 'Bearer $OMP_EVAL_MCP_TOKEN' } }
                : stdio),
              timeout: TOOL_TIMEOUT_S * 1000,
            },
          },
        }),
        where: 'Gemini CLI: merge this into ~/.gemini/settings.json (or .gemini/settings.json of a project).',
      };
  }
}

function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`;
}
