/**
 * One MCP client: its Server (tools and artifact resources) and its named kernel sessions. Kernels
 * start at a session's first cell and are shut down by close(), when the client goes away.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  type InitializeResult,
  isInitializeRequest,
  isJSONRPCResultResponse,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  RootsListChangedNotificationSchema,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { ArgumentError, parseEvalArgs, parseKernelArgs } from './args.js';
import { listArtifacts, readArtifact } from './artifacts.js';
import { askForInput, offersFormElicitation } from './elicitation.js';
import {
  backendAvailability,
  type EvalToolParams,
  type KernelMode,
  LANGUAGES,
  type Language,
  type PrestartedKernel,
  type Settings,
  sandboxOf,
} from './engine.js';
import { KernelSession } from './kernelSession.js';
import { CapError, type CapHolder, ServerCaps } from './limits.js';
import { ProgressReporter } from './progress.js';
import { errorResult, evalCallResult } from './results.js';
import { INSTRUCTIONS, toolsFor } from './tools.js';
import { type KernelPresence, type KernelVariables, listVariables, variablesTable } from './variables.js';
import { supports, withTitle } from './versions.js';
import { checkedWorkspace, rootsWorkspace, type Workspace, WorkspaceError } from './workspace.js';

const SERVER_VERSION = '0.1.0';
/** How long a stopping server waits for the answers to the calls in flight to go out. */
const ANSWER_WAIT_MS = 1000;

/** The restart tool's answer. */
function restartResult(
  name: string,
  mode: KernelMode,
  languages: Language[],
  alive: Language[],
): CallToolResult {
  const names = languages.map((l) => LABEL[l]).join(' and ');
  const message =
    mode === 'per-call'
      ? `Nothing to restart: the server runs in per-call mode, so every eval call already starts fresh kernels.`
      : alive.length
        ? `Restarted the ${alive.map((l) => LABEL[l]).join(' and ')} kernel${alive.length > 1 ? 's' : ''} of session "${name}": all state (variables, imports, loaded data) is lost. The next eval starts a fresh kernel.`
        : `No ${names} kernel of session "${name}" was running; the next eval starts a fresh one.`;
  return {
    content: [{ type: 'text', text: message }],
    structuredContent: { session: name, restarted: alive, stateLost: alive.length > 0, message },
  };
}

type Extra = Parameters<Parameters<Server['setRequestHandler']>[1]>[1];

/**
 * The SDK's Server, knowing the MCP revision it agreed with the client: what the server sends
 * follows it (a field or content type newer than the client's revision can make it reject the
 * whole message). The revision is read from the answer to initialize as it goes out; the Server
 * calls a transport's own `onmessage` before its own, so the request is seen first.
 */
class VersionedServer extends Server {
  /** The revision agreed in initialize (unset before). */
  protocolVersion?: string;
  /** Told of each answer (result or error) once it went out, or failed to. */
  onAnswered?: (id: string | number) => void;

  override async connect(transport: Transport): Promise<void> {
    let initializeId: string | number | undefined;
    transport.onmessage = (message) => {
      if (isInitializeRequest(message)) initializeId = (message as { id: string | number }).id;
    };
    const send = transport.send.bind(transport);
    transport.send = (message, options) => {
      if (initializeId !== undefined && isJSONRPCResultResponse(message) && message.id === initializeId) {
        initializeId = undefined;
        const result = message.result as InitializeResult;
        this.protocolVersion = result.protocolVersion;
        message = {
          ...message,
          result: { ...result, serverInfo: withTitle(result.serverInfo, result.protocolVersion) },
        };
      }
      const answer = 'id' in message && ('result' in message || 'error' in message) ? message.id : undefined;
      const sent = send(message, options);
      if (answer !== undefined && answer !== null)
        void sent.then(
          () => this.onAnswered?.(answer),
          () => this.onAnswered?.(answer),
        );
      return sent;
    };
    await super.connect(transport);
  }
}

export interface ConnectionOptions {
  settings: Settings;
  /** The kernels' working directory (unless the client offers roots). */
  cwd: string;
  /** The environment the backend switches (PI_PY, PI_JS) are read from. */
  env?: NodeJS.ProcessEnv;
  /** The server's caps on sessions and kernels, shared by all its connections (default: a cap of this one's own). */
  caps?: ServerCaps;
  /** The home folder, refused as the workspace (default: the user's). */
  home?: string;
  /** The longest silence between progress notifications of a call with a progress token (default 15 s). */
  keepaliveMs?: number;
  /** A Python kernel's process spawned while the server loaded: the first session takes it if it fits. */
  prestarted?: PrestartedKernel;
}

const LABEL: Record<Language, string> = { py: 'Python', js: 'JavaScript' };

/** A tool as a client of `version` knows tools: no title or output schema before 2025-06-18, no annotations before 2025-03-26. */
function toolFor(tool: Tool, version: string | undefined): Tool {
  const { outputSchema, annotations, ...rest } = withTitle(tool, version);
  return {
    ...rest,
    ...(outputSchema && supports(version, 'structuredContent') ? { outputSchema } : {}),
    ...(annotations && supports(version, 'annotations') ? { annotations } : {}),
  };
}

/** A tool result as a client of `version` takes it: no structured part or link block before 2025-06-18. */
function resultFor(result: CallToolResult, version: string | undefined): CallToolResult {
  if (supports(version, 'structuredContent') && supports(version, 'resourceLink')) return result;
  const { structuredContent: _, ...rest } = result;
  return { ...rest, content: result.content.filter((c) => c.type !== 'resource_link') };
}

export class McpConnection implements CapHolder {
  readonly server: VersionedServer;
  private readonly sessions = new Map<string, KernelSession>();
  private readonly caps: ServerCaps;
  private readonly artifacts: string[] = [];
  private running = 0;
  private closing?: Promise<void>;
  /** Tool calls whose answer has not gone out yet. */
  private readonly unanswered = new Set<string | number>();
  private allAnswered?: () => void;
  /** Rejected by stopCalls(): every call in flight ends with its error. */
  private readonly stopped: Promise<never>;
  private stop!: (error: McpError) => void;
  /** When the last call ended (or the connection began), for idle timeouts. */
  lastActive = performance.now();
  /** The early kernel's process until the first session takes it. */
  private prestarted?: PrestartedKernel;

  constructor(private readonly opts: ConnectionOptions) {
    this.prestarted = opts.prestarted;
    this.caps =
      opts.caps ?? new ServerCaps(opts.settings['mcp.maxSessions'], opts.settings['mcp.maxKernels']);
    this.caps.join(this);
    this.stopped = new Promise<never>((_, reject) => {
      this.stop = reject;
    });
    this.stopped.catch(() => {}); // (raced by each call; nobody else waits for it)
    this.server = new VersionedServer(
      {
        name: 'omp-eval',
        title: 'omp-eval: persistent Python and JavaScript kernels',
        version: SERVER_VERSION,
      },
      { capabilities: { tools: {}, resources: {} }, instructions: INSTRUCTIONS },
    );
    const tools = toolsFor(opts.settings);
    this.server.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: tools.map((tool) => toolFor(tool, this.protocolVersion)),
    }));
    this.server.onAnswered = (id) => {
      this.unanswered.delete(id);
      if (!this.unanswered.size) this.allAnswered?.();
    };
    this.server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      this.unanswered.add(extra.requestId);
      return resultFor(
        await this.track(() => this.callTool(request.params.name, request.params.arguments, extra)),
        this.protocolVersion,
      );
    });
    this.server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
      resourceTemplates: [
        withTitle(
          {
            uriTemplate: 'artifact://{id}',
            name: 'artifact',
            title: 'Full output of a cell',
            description: 'All of the output of a cell whose output was cut in an eval result.',
            mimeType: 'text/plain',
          },
          this.protocolVersion,
        ),
      ],
    }));
    this.server.setRequestHandler(ListResourcesRequestSchema, () => ({
      resources: listArtifacts(this.artifacts).map((r) => withTitle(r, this.protocolVersion)),
    }));
    // New roots are for the sessions opened from now on: a running session keeps its folder.
    this.server.setNotificationHandler(RootsListChangedNotificationSchema, () => {
      this.roots = undefined;
    });
    this.server.setRequestHandler(ReadResourceRequestSchema, (request) => ({
      contents: [readArtifact(request.params.uri)],
    }));
  }

  /** The MCP revision agreed with the client (unset before initialize). */
  get protocolVersion(): string | undefined {
    return this.server.protocolVersion;
  }

  /** A call is running (idle timeouts do not apply). */
  get busy(): boolean {
    return this.running > 0;
  }

  private async track<T>(body: () => Promise<T>): Promise<T> {
    this.running++;
    try {
      return await Promise.race([body(), this.stopped]);
    } finally {
      this.running--;
      this.lastActive = performance.now();
    }
  }

  sessionNames(): string[] {
    return [...this.sessions.keys()];
  }

  kernelCount(): number {
    let n = 0;
    for (const session of this.sessions.values()) n += session.kernelCount();
    return n;
  }

  kernelHolders(): { session: string; languages: Language[] }[] {
    return [...this.sessions.values()].flatMap((s) => {
      const languages = s.liveLanguages();
      return languages.length ? [{ session: s.name, languages }] : [];
    });
  }

  /** The client's roots as a workspace, asked once (and again after they changed). */
  private roots?: Promise<Workspace | undefined>;

  /**
   * Where a new session's kernels work: the client's roots if it offers them (the first the
   * cwd, the others writable), else --cwd; `/` and the home folder refused (WorkspaceError).
   */
  private async workspace(): Promise<Workspace> {
    const env = this.opts.env ?? process.env;
    const writes = sandboxOf(this.opts.settings, env).mode === 'workspace-write';
    if (this.server.getClientCapabilities()?.roots) {
      this.roots ??= this.server.listRoots().then(
        ({ roots }) => rootsWorkspace(roots),
        () => undefined, // (a client that fails roots/list: the server's --cwd)
      );
      const fromRoots = await this.roots;
      if (fromRoots) return checkedWorkspace(fromRoots, writes, this.opts.home);
    }
    return checkedWorkspace({ cwd: this.opts.cwd, writableRoots: [], from: 'cwd' }, writes, this.opts.home);
  }

  /** The session of this name, opened now if it is new (within the server's session cap). */
  private async kernelSession(name: string): Promise<KernelSession> {
    let session = this.sessions.get(name);
    if (!session) {
      const ws = await this.workspace();
      session = this.sessions.get(name); // (another call may have opened it meanwhile)
      if (session) return session;
      this.caps.checkNewSession(this, name);
      const settings = ws.writableRoots.length
        ? {
            ...this.opts.settings,
            'sandbox.writableRoots': [...this.opts.settings['sandbox.writableRoots'], ...ws.writableRoots],
          }
        : this.opts.settings;
      const prestarted = this.prestarted;
      this.prestarted = undefined; // (the first session's, once)
      session = new KernelSession(name, ws.cwd, settings, this.server, prestarted);
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
      if (err instanceof ArgumentError || err instanceof CapError || err instanceof WorkspaceError)
        return errorResult(err.message);
      return errorResult(`${name} failed: ${(err as Error).message}`);
    }
    throw new McpError(
      ErrorCode.InvalidParams,
      `Unknown tool "${name}"; the tools are eval, restart and variables`,
    );
  }

  private async evalCall(args: unknown, extra: Extra): Promise<CallToolResult> {
    const { session: name, params, notes } = parseEvalArgs(args);
    const session = await this.kernelSession(name);
    return session.enqueue(async () => {
      const env = this.opts.env ?? process.env;
      // (checked and counted in one step: a call of another session cannot take the same room)
      try {
        this.caps.checkNewKernels(this, name, session.kernelsToStart(params, env));
      } catch (err) {
        if (err instanceof CapError) return errorResult(err.message);
        throw err;
      }
      return session.holdingKernels(params, () => this.runEval(session, params, extra, notes));
    });
  }

  private async runEval(
    session: KernelSession,
    params: EvalToolParams,
    extra: Extra,
    notes: string[],
  ): Promise<CallToolResult> {
    const token = extra._meta?.progressToken;
    // (a progress notification's `message` came with 2025-03-26)
    const withMessage = supports(this.protocolVersion, 'progressMessage');
    const progress =
      token === undefined
        ? undefined
        : new ProgressReporter(
            token,
            params.cells.length,
            (p) =>
              extra.sendNotification({
                method: 'notifications/progress',
                params: withMessage
                  ? p
                  : {
                      progressToken: p.progressToken,
                      progress: p.progress,
                      ...(p.total !== undefined ? { total: p.total } : {}),
                    },
              }),
            this.opts.keepaliveMs,
          );
    session.currentRequest = extra.requestId;
    try {
      const result = await session.runCells(params, {
        signal: extra.signal,
        env: this.opts.env ?? process.env,
        ...(offersFormElicitation(this.server.getClientCapabilities())
          ? {
              onInput: (i, prompt, password, ended) =>
                this.askInput(i, prompt, password, AbortSignal.any([extra.signal, ended]), extra, notes),
            }
          : {}),
        ...(progress ? { onEvent: (i, event) => progress.onEvent(i, event) } : {}),
      });
      await progress?.finish();
      // The client no longer waits for this result: the next call says what happened.
      const cancelled = extra.signal.aborted;
      if (cancelled) session.noteCancelledCall(result.cells);
      else session.delivered(result.cells);
      const notices = cancelled ? [] : [...session.takeNotices(), ...notes];
      const answer = await evalCallResult(result, session.name, notices, {
        version: this.protocolVersion,
        artifactDir: session.executor.artifactDir,
      });
      this.artifacts.push(...answer.artifacts);
      return answer.result;
    } finally {
      session.currentRequest = undefined;
      await progress?.finish();
    }
  }

  private async restartCall(args: unknown): Promise<CallToolResult> {
    const { session: name, languages } = parseKernelArgs('restart', args);
    const mode = this.opts.settings['python.kernelMode'];
    const session = this.sessions.get(name); // (a session that does not exist is not opened for this)
    if (!session) return restartResult(name, mode, languages, []);
    return session.enqueue(async () => {
      const alive = (await session.running()).filter((l) => languages.includes(l));
      if (mode !== 'per-call') await session.restart(languages.length === 1 ? languages[0] : undefined);
      // With all its kernels gone the session ends, and its place under --max-sessions is free;
      // the next eval opens it anew. (Not while a call of it waits in the queue.)
      if (languages.length === LANGUAGES.length && session.alone && this.sessions.get(name) === session) {
        this.sessions.delete(name);
        await session.dispose();
      }
      return restartResult(name, mode, languages, alive);
    });
  }

  /** A cell's input() through elicitation; a note for the result when it was not answered. */
  private async askInput(
    cell: number,
    prompt: string,
    password: boolean,
    signal: AbortSignal,
    extra: Extra,
    notes: string[],
  ) {
    const answer = await askForInput(this.server, {
      prompt,
      password,
      cell: cell + 1,
      signal,
      relatedRequestId: extra.requestId,
    });
    if (answer.note) notes.push(answer.note);
    return answer.value;
  }

  private async variablesCall(args: unknown): Promise<CallToolResult> {
    const { session: name, languages } = parseKernelArgs('variables', args);
    const session = this.sessions.get(name); // (a session that does not exist is not opened for this)
    const mode = this.opts.settings['python.kernelMode'];
    const available = backendAvailability(this.opts.settings, this.opts.env ?? process.env);
    const listing = async (): Promise<CallToolResult> => {
      const kernels: Partial<Record<Language, KernelPresence>> = {};
      const found: KernelVariables[] = [];
      for (const language of languages) {
        if (!available[language]) {
          kernels[language] = 'unavailable';
          continue;
        }
        const listed =
          mode === 'per-call' || !session
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
          return mode === 'per-call'
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
    };
    return session ? session.enqueue(listing) : listing();
  }

  /**
   * Answers every tool call in flight with an error saying `why` (a signal: the server is going
   * away) and resolves once those answers went out, or after `withinMs` (a client that reads no
   * more). Calls that come later get the same error. close() then shuts the kernels down.
   */
  async stopCalls(why: string, withinMs = ANSWER_WAIT_MS): Promise<void> {
    const error = new McpError(
      ErrorCode.InternalError,
      `${why}: the call did not finish, and the kernels are being shut down (their state is gone).`,
    );
    const answered = new Promise<void>((resolve) => {
      this.allAnswered = resolve;
      if (!this.unanswered.size) resolve();
    });
    this.stop(error);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([answered, new Promise((resolve) => (timer = setTimeout(resolve, withinMs)))]);
    clearTimeout(timer);
  }

  /** Shuts down every kernel of the connection and closes the server; idempotent. */
  close(): Promise<void> {
    this.closing ??= this.closeNow();
    return this.closing;
  }

  private async closeNow(): Promise<void> {
    const sessions = [...this.sessions.values()];
    this.sessions.clear();
    this.caps.leave(this);
    this.prestarted?.discard(); // (no session took it)
    await Promise.all(
      sessions.map((s) =>
        s.dispose("the agent's MCP connection ended (its client went away, or the server stopped)"),
      ),
    );
    await this.server.close().catch(() => {});
  }
}
