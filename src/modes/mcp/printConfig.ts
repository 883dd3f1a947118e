/**
 * `omp-eval mcp --print-config CLIENT`: the configuration snippet that makes a client start this
 * server (stdout), and where it goes (stderr). Nothing is written into other programs' files.
 */
import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';

export const CLIENTS = ['claude', 'codex', 'cursor', 'gemini'] as const;
export type ClientName = (typeof CLIENTS)[number];

export const SERVER_NAME = 'omp-eval';
/** Clients that cut tool calls short get room for the longest cell timeout (3600 s). */
const TOOL_TIMEOUT_S = 3700;

export interface Invocation {
  /** The server over stdio: a command and its arguments. */
  command: string;
  args: string[];
  /** Or the server over HTTP, already running at this URL (token in OMP_EVAL_MCP_TOKEN). */
  url?: string;
}

/** Flags whose value is a path, made absolute (the client starts the server elsewhere). */
const PATH_FLAGS = new Set(['--cwd', '--python']);

/**
 * How this very command line starts the server: node and the launcher by absolute path (a client
 * started from a desktop may not have node on its PATH), with the same flags, minus --print-config.
 */
export function invocationFromArgv(argv: string[], execPath = process.execPath): Invocation {
  const [, script = 'omp-eval', ...rest] = argv;
  const args: string[] = [];
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i] as string;
    if (arg === '--print-config') {
      i++;
      continue;
    }
    if (arg.startsWith('--print-config=')) continue;
    const [flag, inline] = arg.split(/=(.*)/s, 2) as [string, string | undefined];
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
  return { command: execPath, args: [launcher, ...args] };
}

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;
const toml = (value: string | string[]) => JSON.stringify(value);
/** Claude Code and Cursor expand `${VAR}` in headers from their environment. */
// biome-ignore lint/suspicious/noTemplateCurlyInString: the client expands it, not us
const TOKEN_REF = '${OMP_EVAL_MCP_TOKEN}';
const AUTH_HEADER = { Authorization: `Bearer ${TOKEN_REF}` };

/** The snippet (for stdout) and where to put it (for stderr). */
export function configSnippet(client: ClientName, inv: Invocation): { snippet: string; where: string } {
  const stdio = { command: inv.command, args: inv.args };
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
        where: inv.url
          ? `Claude Code: merge this into .mcp.json at the project root (Claude Code expands ${TOKEN_REF} from its environment).`
          : `Claude Code: merge this into .mcp.json at the project root, or run: claude mcp add ${SERVER_NAME} -- ${[inv.command, ...inv.args].map(shellWord).join(' ')}`,
      };
    case 'codex': {
      const lines = [`[mcp_servers.${JSON.stringify(SERVER_NAME)}]`];
      if (inv.url) lines.push(`url = ${toml(inv.url)}`, 'bearer_token_env_var = "OMP_EVAL_MCP_TOKEN"');
      else
        lines.push(
          `command = ${toml(inv.command)}`,
          `args = [${inv.args.map(toml).join(', ')}]`,
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
          mcpServers: { [SERVER_NAME]: inv.url ? { url: inv.url, headers: AUTH_HEADER } : stdio },
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
