/**
 * Each `--print-config` snippet against the format its client documents (issue 42, item 8). The
 * schemas are written here from each client's documentation (the fields it lists, which are
 * required, which variables it expands), and checked with ajv:
 * - Claude Code: `.mcp.json`, `mcpServers` of `type` stdio (command, args, env) or http (url,
 *   headers), `${VAR}` expanded; its own tool timeout is MCP_TOOL_TIMEOUT (ms) in the `env` of
 *   `.claude/settings.json`.
 * - Claude Desktop: `claude_desktop_config.json`, `mcpServers` of command, args and env only; no
 *   variables are expanded.
 * - Cursor: `mcp.json`, `mcpServers` of command/args/env or url/headers; `${env:NAME}`,
 *   `${userHome}`, `${workspaceFolder}`, `${workspaceFolderBasename}`, `${pathSeparator}`, `${/}`.
 * - VS Code: `.vscode/mcp.json`, `servers` whose `type` is required (stdio: command, args, env,
 *   envFile; http: url, headers), `inputs` of promptString with id, description and password;
 *   `${input:id}` names a declared input, `${env:NAME}` a variable.
 * - Gemini CLI: `settings.json`, `mcpServers` of command/args/env/cwd or httpUrl/headers, with
 *   timeout (ms); `$VAR` expanded.
 */
import { Ajv, type JSONSchemaType, type ValidateFunction } from 'ajv';
import { describe, expect, it } from 'vitest';
import {
  CLAUDE_TOOL_TIMEOUT,
  CLIENTS,
  type ClientName,
  configSnippet,
  invocationFromArgv,
} from '../../src/modes/mcp/printConfig.js';

const NODE = '/usr/bin/node';
const argv = (...args: string[]) => [NODE, '/no/such/bin/omp-eval.js', ...args];
const strings = { type: 'array', items: { type: 'string' } } as const;
const stringMap = { type: 'object', additionalProperties: { type: 'string' } } as const;

const stdioEntry = (extra: Record<string, unknown> = {}, required: string[] = ['command']) => ({
  type: 'object',
  required,
  additionalProperties: false,
  properties: { command: { type: 'string', minLength: 1 }, args: strings, env: stringMap, ...extra },
});
const servers = (entry: object) => ({
  type: 'object',
  minProperties: 1,
  additionalProperties: entry,
});

const SCHEMAS: Record<Exclude<ClientName, 'codex'>, object> = {
  claude: {
    type: 'object',
    required: ['mcpServers'],
    additionalProperties: false,
    properties: {
      mcpServers: servers({
        oneOf: [
          stdioEntry({ type: { const: 'stdio' } }),
          {
            type: 'object',
            required: ['type', 'url'],
            additionalProperties: false,
            properties: { type: { enum: ['http', 'sse'] }, url: { type: 'string' }, headers: stringMap },
          },
        ],
      }),
    },
  },
  'claude-desktop': {
    type: 'object',
    required: ['mcpServers'],
    additionalProperties: false,
    properties: { mcpServers: servers(stdioEntry()) },
  },
  cursor: {
    type: 'object',
    required: ['mcpServers'],
    additionalProperties: false,
    properties: {
      mcpServers: servers({
        oneOf: [
          stdioEntry({ envFile: { type: 'string' } }),
          {
            type: 'object',
            required: ['url'],
            additionalProperties: false,
            properties: { url: { type: 'string' }, headers: stringMap },
          },
        ],
      }),
    },
  },
  vscode: {
    type: 'object',
    required: ['servers'],
    additionalProperties: false,
    properties: {
      inputs: {
        type: 'array',
        items: {
          type: 'object',
          required: ['type', 'id', 'description'],
          additionalProperties: false,
          properties: {
            type: { const: 'promptString' },
            id: { type: 'string' },
            description: { type: 'string' },
            password: { type: 'boolean' },
          },
        },
      },
      servers: servers({
        oneOf: [
          stdioEntry({ type: { const: 'stdio' }, envFile: { type: 'string' } }, ['type', 'command']),
          {
            type: 'object',
            required: ['type', 'url'],
            additionalProperties: false,
            properties: { type: { enum: ['http', 'sse'] }, url: { type: 'string' }, headers: stringMap },
          },
        ],
      }),
    },
  },
  gemini: {
    type: 'object',
    required: ['mcpServers'],
    additionalProperties: false,
    properties: {
      mcpServers: servers({
        type: 'object',
        additionalProperties: false,
        properties: {
          command: { type: 'string' },
          args: strings,
          env: stringMap,
          cwd: { type: 'string' },
          url: { type: 'string' },
          httpUrl: { type: 'string' },
          headers: stringMap,
          timeout: { type: 'integer', minimum: 1 },
          trust: { type: 'boolean' },
        },
        oneOf: [{ required: ['command'] }, { required: ['httpUrl'] }, { required: ['url'] }],
      }),
    },
  },
};

/** The variables each client expands in its file (a reference it does not know stays literal). */
const VARIABLES: Record<Exclude<ClientName, 'codex'>, RegExp | null> = {
  claude: /^\$\{[A-Z_][A-Z0-9_]*(:-[^}]*)?\}$/,
  'claude-desktop': null,
  cursor:
    /^\$\{(env:[A-Za-z_][A-Za-z0-9_]*|userHome|workspaceFolder|workspaceFolderBasename|pathSeparator|\/)\}$/,
  vscode: /^\$\{(env:[A-Za-z_][A-Za-z0-9_]*|input:[\w.-]+|workspaceFolder|userHome)\}$/,
  gemini: /^\$[A-Z_][A-Z0-9_]*$/,
};

const ajv = new Ajv({ allErrors: true, strict: false });
const validators = Object.fromEntries(
  Object.entries(SCHEMAS).map(([client, schema]) => [client, ajv.compile(schema)]),
) as Record<Exclude<ClientName, 'codex'>, ValidateFunction>;

/** A parsed snippet that fits its client's documented format; the references it makes. */
function check(client: Exclude<ClientName, 'codex'>, snippet: string): unknown {
  const parsed: unknown = JSON.parse(snippet);
  const validate = validators[client];
  expect(validate(parsed), `${client}: ${ajv.errorsText(validate.errors)}\n${snippet}`).toBe(true);
  const references = snippet.match(client === 'gemini' ? /\$[A-Z_][A-Z0-9_]*/g : /\$\{[^}]*\}/g) ?? [];
  const allowed = VARIABLES[client];
  if (!allowed) expect(references, `${client} expands no variables`).toEqual([]);
  for (const ref of references) expect(ref, `${client} does not expand ${ref}`).toMatch(allowed as RegExp);
  return parsed;
}

const stdioInv = invocationFromArgv(argv('mcp'), NODE, {}, '/work/proj');
const jupyterInv = invocationFromArgv(
  argv('--jupyter', 'http://gpu:8888/', '--token', 'c0ffee5ecret99', 'mcp'),
  NODE,
  {},
  '/work/proj',
);
const httpInv = { ...stdioInv, url: 'http://127.0.0.1:8765/mcp' };
const JSON_CLIENTS = CLIENTS.filter((c): c is Exclude<ClientName, 'codex'> => c !== 'codex');

describe("--print-config against each client's documented format", () => {
  it('every stdio snippet, with and without a Jupyter token passed on', () => {
    for (const client of JSON_CLIENTS)
      for (const inv of [stdioInv, jupyterInv]) check(client, configSnippet(client, inv).snippet);
  });

  it('every HTTP snippet, with the token in the syntax of the client (Claude Desktop refuses)', () => {
    for (const client of JSON_CLIENTS) {
      if (client === 'claude-desktop') {
        expect(() => configSnippet(client, httpInv)).toThrow(/stdio\) servers only.*without --http/);
        continue;
      }
      check(client, configSnippet(client, httpInv).snippet);
    }
    const cursor = JSON.parse(configSnippet('cursor', httpInv).snippet).mcpServers['omp-eval'];
    // biome-ignore lint/suspicious/noTemplateCurlyInString: Cursor expands it
    expect(cursor.headers).toEqual({ Authorization: 'Bearer ${env:OMP_EVAL_MCP_TOKEN}' });
  });

  it('VS Code: servers with a type; the HTTP token is a password input the header names', () => {
    const stdio = JSON.parse(configSnippet('vscode', stdioInv).snippet);
    expect(stdio.servers['omp-eval']).toMatchObject({
      type: 'stdio',
      command: NODE,
      args: ['/no/such/bin/omp-eval.js', 'mcp'],
    });
    const http = JSON.parse(configSnippet('vscode', httpInv).snippet);
    const [input] = http.inputs;
    expect(input).toMatchObject({ type: 'promptString', password: true });
    expect(http.servers['omp-eval'].headers.Authorization).toBe(`Bearer \${input:${input.id}}`);
    expect(configSnippet('vscode', stdioInv).where).toMatch(/\.vscode\/mcp\.json/);
  });

  it('Claude Desktop (no roots) gets the --cwd; its note names claude_desktop_config.json', () => {
    const { snippet, where } = configSnippet('claude-desktop', stdioInv);
    expect(JSON.parse(snippet).mcpServers['omp-eval'].args).toEqual([
      '/no/such/bin/omp-eval.js',
      '--cwd',
      '/work/proj',
      'mcp',
    ]);
    expect(where).toMatch(/claude_desktop_config\.json/);
    expect(where).toMatch(/Claude Desktop offers no MCP roots/);
  });

  it("Claude Code: the note gives the tool timeout as its settings.json's env, longer than the longest cell", () => {
    const settings: JSONSchemaType<{ env: Record<string, string> }> = {
      type: 'object',
      required: ['env'],
      additionalProperties: false,
      properties: {
        env: { type: 'object', required: [], additionalProperties: { type: 'string' } },
      },
    };
    for (const inv of [stdioInv, httpInv]) {
      const { where } = configSnippet('claude', inv);
      const quoted = /merge (\{.*\}) into \.claude\/settings\.json/.exec(where)?.[1] ?? '';
      const parsed = JSON.parse(quoted);
      expect(ajv.validate(settings, parsed), ajv.errorsText()).toBe(true);
      expect(parsed).toEqual(CLAUDE_TOOL_TIMEOUT);
      expect(Number(parsed.env.MCP_TOOL_TIMEOUT)).toBeGreaterThan(3600 * 1000);
      expect(where).toMatch(/MCP_TOOL_TIMEOUT=\d+/);
    }
  });
});
