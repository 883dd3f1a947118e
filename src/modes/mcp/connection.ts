/**
 * One MCP client: its Server (tools and artifact resources) and its named kernel sessions. Kernels
 * start at a session's first cell and are shut down by close(), when the client goes away.
 */
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  RootsListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { VERSION } from '../../version.js';
import type { SessionFeed } from '../share/feed.js';
import { ArgumentError, parseEvalArgs, parseKernelArgs } from './args.js';
import { serveArtifacts } from './artifacts.js';
import { type ClientAsker, requestAsker } from './clientAsk.js';
import {
  backendAvailability,
  LANGUAGES,
  type Language,
  type PrestartedKernel,
  type Settings,
} from './engine.js';
import { runEvalCall } from './evalCall.js';
import { KernelSession } from './kernelSession.js';
import { restartResult, sessionVariables } from './kernelTools.js';
import { CapError, type CapHolder, ServerCaps } from './limits.js';
import { errorResult } from './results.js';
import { EvalTaskStore } from './tasks.js';
import { INSTRUCTIONS, toolsFor } from './tools.js';
import { type CallToolRequest, type Extra, resultFor, toolFor, VersionedServer } from './versionedServer.js';
import { ClientWorkspace, WorkspaceError } from './workspace.js';

/** How long a stopping server waits for the answers to the calls in flight to go out. */
const ANSWER_WAIT_MS = 1000;

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
  /** A person's notebook served to its agents (`omp-eval --serve-mcp`, src/modes/serve). */
  notebook?: {
    /**
     * The one session every session name of this client runs in, made at its first call, over the
     * notebook's kernels: the client's going leaves them running.
     */
    session: (server: VersionedServer) => KernelSession;
    /** Said at the end of the eval tool's description: whose kernels these are, which sandbox applies. */
    about: string;
  };
  /**
   * The MCP revision, for a connection of the 2026-07-28 era (no initialize): its requests come
   * through the v2 SDK's server (modern.ts), which calls `call()`; the client is asked nothing.
   */
  revision?: string;
}

/**
 * What a tool call needs of its request: the SDK's handler context, as either SDK names it, and
 * for a 2026-07-28 call how it asks its client (else the server's requests related to it do).
 */
export type CallExtra = Pick<Extra, 'signal' | 'requestId' | 'sessionId' | '_meta' | 'sendNotification'> & {
  asker?: ClientAsker;
};

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
  /** Where new sessions work. */
  private readonly workspace: ClientWorkspace;
  /** Eval calls made as tasks: their status and, once done, their results. */
  private readonly tasks = new EvalTaskStore();
  /** The notebook's session, when serving a notebook (opts.notebook), once made. */
  private notebookSession?: KernelSession;
  /** The feeds of sessions a restart of all their kernels ended, by name, until opened again. */
  private readonly restartedFeeds = new Map<string, SessionFeed>();
  private readonly closeListeners: (() => void)[] = [];
  /** The tools as this connection offers them (a served notebook's eval says whose kernels). */
  readonly tools: ReturnType<typeof toolsFor>;

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
        version: VERSION,
      },
      {
        capabilities: {
          tools: {},
          resources: {},
          tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
        },
        instructions: INSTRUCTIONS,
        taskStore: this.tasks,
      },
    );
    if (opts.revision) this.speak(opts.revision);
    this.workspace = new ClientWorkspace(this.server, opts);
    const about = opts.notebook?.about;
    this.tools = toolsFor(opts.settings).map((t) =>
      about && t.name === 'eval' ? { ...t, description: `${t.description}\n\n${about}` } : t,
    );
    this.server.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: this.tools.map((tool) => toolFor(tool, this.protocolVersion)),
    }));
    this.server.onAnswered = (id) => this.answered(id);
    this.server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      this.expectAnswer(extra.requestId);
      if ((request as CallToolRequest).params.task)
        return this.tasks.start(request as CallToolRequest, extra, this.protocolVersion, (taskExtra, id) =>
          this.track(() => this.callTool(request.params.name, request.params.arguments, taskExtra, id)),
        );
      return resultFor(
        await this.track(() => this.callTool(request.params.name, request.params.arguments, extra)),
        this.protocolVersion,
      );
    });
    serveArtifacts(this.server, this.artifacts);
    // New roots are for the sessions opened from now on: a running session keeps its folder.
    this.server.setNotificationHandler(RootsListChangedNotificationSchema, () =>
      this.workspace.rootsChanged(),
    );
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

  /** The session of this name, opened now if it is new (within the server's session cap). */
  private async kernelSession(name: string): Promise<KernelSession> {
    if (this.opts.notebook) {
      this.notebookSession ??= this.opts.notebook.session(this.server);
      return this.notebookSession;
    }
    let session = this.sessions.get(name);
    if (!session) {
      const ws = await this.workspace.get();
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
      const followed = this.restartedFeeds.get(name);
      this.restartedFeeds.delete(name);
      session = new KernelSession(name, ws.cwd, settings, this.server, prestarted, undefined, followed);
      this.sessions.set(name, session);
    }
    return session;
  }

  /**
   * The connection speaks `revision` of the 2026-07-28 era (unset: back to the handshake's, for a
   * client that fell back to initialize after server/discover). There is no initialize: the client
   * offers the server nothing to ask (no sampling, elicitation or roots).
   */
  speak(revision: string | undefined): void {
    this.server.protocolVersion = revision;
  }

  /** A tool call of a 2026-07-28 client (modern.ts): one path with the earlier revisions' calls. */
  call(name: string, args: unknown, extra: CallExtra): Promise<CallToolResult> {
    return this.track(() => this.callTool(name, args, extra));
  }

  /** A tool call's answer is owed to the client: stopCalls() waits until it has gone out. */
  expectAnswer(id: string | number): void {
    this.unanswered.add(id);
  }

  /** The answer to the request `id` has gone out (any request's: only tool calls are waited for). */
  answered(id: string | number): void {
    this.unanswered.delete(id);
    if (!this.unanswered.size) this.allAnswered?.();
  }

  /** The files this connection's results named (its artifact resources). */
  get artifactFiles(): readonly string[] {
    return this.artifacts;
  }

  private async callTool(
    name: string,
    args: unknown,
    extra: CallExtra,
    taskId?: string,
  ): Promise<CallToolResult> {
    if (this.closing) return errorResult('The server is shutting down.');
    try {
      if (name === 'eval') return await this.evalCall(args, extra, taskId);
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

  private async evalCall(args: unknown, extra: CallExtra, taskId?: string): Promise<CallToolResult> {
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
      return session.holdingKernels(params, async () => {
        const answer = await runEvalCall(session, params, extra, notes, {
          version: this.protocolVersion,
          env: this.opts.env ?? process.env,
          asker: extra.asker ?? requestAsker(this.server, extra.requestId),
          ...(this.opts.keepaliveMs !== undefined ? { keepaliveMs: this.opts.keepaliveMs } : {}),
          ...(taskId
            ? {
                task: {
                  id: taskId,
                  tell: (message: string) => this.tasks.tell(taskId, message, extra.sessionId),
                },
              }
            : {}),
        });
        this.artifacts.push(...answer.artifacts);
        return answer.result;
      });
    });
  }

  private async restartCall(args: unknown): Promise<CallToolResult> {
    const { session: name, languages } = parseKernelArgs('restart', args);
    const mode = this.opts.settings['python.kernelMode'];
    // (a session that does not exist is not opened for this; a notebook's always exists)
    const session = this.opts.notebook ? await this.kernelSession(name) : this.sessions.get(name);
    if (!session) return restartResult(name, mode, languages, []);
    return session.enqueue(async () => {
      const alive = (await session.running()).filter((l) => languages.includes(l));
      if (mode !== 'per-call') await session.restart(languages.length === 1 ? languages[0] : undefined);
      // With all its kernels gone the session ends, and its place under --max-sessions is free;
      // the next eval opens it anew. (Not while a call of it waits in the queue.)
      // Its followers stay with the feed, which the session opened anew takes over.
      if (languages.length === LANGUAGES.length && session.alone && this.sessions.get(name) === session) {
        this.sessions.delete(name);
        this.restartedFeeds.set(name, await session.restartedAway());
      } else if (alive.length) session.toldRestarted(alive);
      return restartResult(name, mode, languages, alive);
    });
  }

  private async variablesCall(args: unknown): Promise<CallToolResult> {
    const { session: name, languages } = parseKernelArgs('variables', args);
    // (a session that does not exist is not opened for this; a notebook's always exists)
    const session = this.opts.notebook ? await this.kernelSession(name) : this.sessions.get(name);
    const mode = this.opts.settings['python.kernelMode'];
    const available = backendAvailability(this.opts.settings, this.opts.env ?? process.env);
    const listing = () => sessionVariables(name, session, languages, mode, available);
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
      this.opts.notebook
        ? `${why}: the call did not finish (its running cell is interrupted; the notebook keeps its kernels).`
        : `${why}: the call did not finish, and the kernels are being shut down (their state is gone).`,
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

  /** Calls `listener` when the connection closes. */
  onClose(listener: () => void): void {
    this.closeListeners.push(listener);
  }

  /** Shuts down every kernel of the connection and closes the server; idempotent. */
  close(): Promise<void> {
    this.closing ??= this.closeNow();
    return this.closing;
  }

  private async closeNow(): Promise<void> {
    const sessions = [...this.sessions.values(), ...(this.notebookSession ? [this.notebookSession] : [])];
    this.sessions.clear();
    this.caps.leave(this);
    this.prestarted?.discard(); // (no session took it)
    this.tasks.close();
    for (const listener of this.closeListeners.splice(0)) listener();
    const why = "the agent's MCP connection ended (its client went away, or the server stopped)";
    for (const feed of this.restartedFeeds.values()) feed.end(why);
    this.restartedFeeds.clear();
    await Promise.all(sessions.map((s) => s.dispose(why)));
    await this.server.close().catch(() => {});
  }
}
