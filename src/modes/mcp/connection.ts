/**
 * One MCP client: its Server (tools and artifact resources) and its named kernel sessions. Kernels
 * start at a session's first cell and are shut down by close(), when the client goes away.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { ArgumentError, parseEvalArgs, parseKernelArgs } from './args.js';
import { listArtifacts, readArtifact } from './artifacts.js';
import { backendAvailability, type Language, type Settings } from './engine.js';
import { KernelSession } from './kernelSession.js';
import { ProgressReporter } from './progress.js';
import { errorResult, evalCallResult } from './results.js';
import { INSTRUCTIONS, toolsFor } from './tools.js';
import { type KernelPresence, type KernelVariables, listVariables, variablesTable } from './variables.js';

export const SERVER_VERSION = '0.1.0';

type Extra = Parameters<Parameters<Server['setRequestHandler']>[1]>[1];

export interface ConnectionOptions {
  settings: Settings;
  /** The kernels' working directory. */
  cwd: string;
  /** The environment the backend switches (PI_PY, PI_JS) are read from. */
  env?: NodeJS.ProcessEnv;
}

const LABEL: Record<Language, string> = { py: 'Python', js: 'JavaScript' };

export class McpConnection {
  readonly server: Server;
  private readonly sessions = new Map<string, KernelSession>();
  private readonly artifacts: string[] = [];
  private running = 0;
  private closing?: Promise<void>;
  /** When the last call ended (or the connection began), for idle timeouts. */
  lastActive = performance.now();

  constructor(private readonly opts: ConnectionOptions) {
    this.server = new Server(
      {
        name: 'omp-eval',
        title: 'omp-eval: persistent Python and JavaScript kernels',
        version: SERVER_VERSION,
      },
      { capabilities: { tools: {}, resources: {} }, instructions: INSTRUCTIONS },
    );
    const tools = toolsFor(opts.settings);
    this.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
    this.server.setRequestHandler(CallToolRequestSchema, (request, extra) =>
      this.track(() => this.callTool(request.params.name, request.params.arguments, extra)),
    );
    this.server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
      resourceTemplates: [
        {
          uriTemplate: 'artifact://{id}',
          name: 'artifact',
          title: 'Full output of a cell',
          description: 'All of the output of a cell whose output was cut in an eval result.',
          mimeType: 'text/plain',
        },
      ],
    }));
    this.server.setRequestHandler(ListResourcesRequestSchema, () => ({
      resources: listArtifacts(this.artifacts),
    }));
    this.server.setRequestHandler(ReadResourceRequestSchema, (request) => ({
      contents: [readArtifact(request.params.uri)],
    }));
  }

  /** A call is running (idle timeouts do not apply). */
  get busy(): boolean {
    return this.running > 0;
  }

  private async track<T>(body: () => Promise<T>): Promise<T> {
    this.running++;
    try {
      return await body();
    } finally {
      this.running--;
      this.lastActive = performance.now();
    }
  }

  private kernelSession(name: string): KernelSession {
    let session = this.sessions.get(name);
    if (!session) {
      session = new KernelSession(name, this.opts.cwd, this.opts.settings, this.server);
      this.sessions.set(name, session);
    }
    return session;
  }

  private async callTool(name: string, args: unknown, extra: Extra): Promise<CallToolResult> {
    if (this.closing) return errorResult('The server is shutting down.');
    try {
      if (name === 'eval') return await this.evalCall(args, extra);
      if (name === 'restart') return await this.restartCall(args);
      if (name === 'variables') return await this.variablesCall(args);
    } catch (err) {
      if (err instanceof ArgumentError) return errorResult(err.message);
      return errorResult(`${name} failed: ${(err as Error).message}`);
    }
    throw new McpError(
      ErrorCode.InvalidParams,
      `Unknown tool "${name}"; the tools are eval, restart and variables`,
    );
  }

  private async evalCall(args: unknown, extra: Extra): Promise<CallToolResult> {
    const { session: name, params } = parseEvalArgs(args);
    const session = this.kernelSession(name);
    return session.enqueue(async () => {
      const token = extra._meta?.progressToken;
      const progress =
        token === undefined
          ? undefined
          : new ProgressReporter(token, params.cells.length, (p) =>
              extra.sendNotification({ method: 'notifications/progress', params: p }),
            );
      session.currentRequest = extra.requestId;
      try {
        const result = await session.runCells(params, {
          signal: extra.signal,
          env: this.opts.env ?? process.env,
          ...(progress ? { onEvent: (i, event) => progress.onEvent(i, event) } : {}),
        });
        await progress?.finish();
        for (const cell of result.cells)
          if (cell.truncation?.artifact) this.artifacts.push(cell.truncation.artifact);
        // The client no longer waits for this result: the next call says what happened.
        const cancelled = extra.signal.aborted;
        if (cancelled) session.noteCancelledCall(result.cells);
        return await evalCallResult(result, name, cancelled ? [] : session.takeNotices());
      } finally {
        session.currentRequest = undefined;
        await progress?.finish();
      }
    });
  }

  private async restartCall(args: unknown): Promise<CallToolResult> {
    const { session: name, languages } = parseKernelArgs('restart', args);
    const session = this.kernelSession(name);
    return session.enqueue(async () => {
      const alive = (await session.running()).filter((l) => languages.includes(l));
      if (session.mode !== 'per-call')
        await session.restart(languages.length === 1 ? languages[0] : undefined);
      const names = languages.map((l) => LABEL[l]).join(' and ');
      const message =
        session.mode === 'per-call'
          ? `Nothing to restart: the server runs in per-call mode, so every eval call already starts fresh kernels.`
          : alive.length
            ? `Restarted the ${alive.map((l) => LABEL[l]).join(' and ')} kernel${alive.length > 1 ? 's' : ''} of session "${name}": all state (variables, imports, loaded data) is lost. The next eval starts a fresh kernel.`
            : `No ${names} kernel of session "${name}" was running; the next eval starts a fresh one.`;
      return {
        content: [{ type: 'text', text: message }],
        structuredContent: { session: name, restarted: alive, stateLost: alive.length > 0, message },
      };
    });
  }

  private async variablesCall(args: unknown): Promise<CallToolResult> {
    const { session: name, languages } = parseKernelArgs('variables', args);
    const session = this.kernelSession(name);
    const available = backendAvailability(this.opts.settings, this.opts.env ?? process.env);
    return session.enqueue(async () => {
      const kernels: Partial<Record<Language, KernelPresence>> = {};
      const found: KernelVariables[] = [];
      for (const language of languages) {
        if (!available[language]) {
          kernels[language] = 'unavailable';
          continue;
        }
        const listed =
          session.mode === 'per-call'
            ? { language, presence: 'not started' as const, variables: [], total: 0 }
            : await listVariables(await session.session(), language);
        kernels[language] = listed.presence;
        found.push(listed);
      }
      const variables = found.flatMap((k) => k.variables);
      const lines = found.map((k) => {
        const label = LABEL[k.language];
        if (k.error) return `${label}: ${k.error}`;
        if (k.presence === 'not started')
          return session.mode === 'per-call'
            ? `${label}: no kernel persists between calls (per-call mode).`
            : `${label}: no kernel is running (it starts at the first ${k.language} cell).`;
        if (!k.variables.length) return `${label}: no names defined.`;
        const more =
          k.total > k.variables.length ? `\n(${k.total - k.variables.length} more not listed)` : '';
        return `${label}:\n${variablesTable(k.variables)}${more}`;
      });
      const truncated = found.some((k) => k.total > k.variables.length);
      return {
        content: [{ type: 'text', text: lines.join('\n\n') }],
        structuredContent: { session: name, kernels, variables, ...(truncated ? { truncated } : {}) },
      };
    });
  }

  /** Shuts down every kernel of the connection and closes the server; idempotent. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      const sessions = [...this.sessions.values()];
      this.sessions.clear();
      await Promise.all(sessions.map((s) => s.dispose()));
      await this.server.close().catch(() => {});
    })();
    return this.closing;
  }
}
