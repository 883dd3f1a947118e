/**
 * The MCP server of a served notebook (`/serve`, `omp-eval --serve-mcp`): `omp-eval mcp --http`'s
 * server (src/modes/mcp/http.ts: loopback, bearer token, Origin and Host checks) whose every client
 * runs its calls in one KernelSession over the notebook's own executor and kernel set, so no second
 * kernel starts. Each client's session is followed by the notebook (servedCalls.ts); a cell the
 * person runs is told to every connected agent in its next result. Loaded at the first /serve.
 */
import {
  type CellResult,
  type Executor,
  type Language,
  type Session,
  sandboxOf,
  sandboxSummary,
} from '../mcp/engine.js';
import { nameChanges, namesOf, personNote } from '../mcp/followers.js';
import { McpHttpServer } from '../mcp/http.js';
import { bearerToken, parseListenAddress } from '../mcp/httpOptions.js';
import { KernelSession } from '../mcp/kernelSession.js';
import { ServerCaps } from '../mcp/limits.js';
import { CLIENTS, type ClientName, configSnippet } from '../mcp/printConfig.js';
import type { ServedCalls } from './servedCalls.js';

/** The session name the agents' results carry. */
const SESSION = 'notebook';
/** Who ran a person's cell, as the agents' notes say it. */
const PERSON = 'The person whose notebook this is (omp-eval --serve-mcp)';
/** Notes of the person's cells an agent is told between two of its calls; then one line for the rest. */
const NOTES_PER_CALL = 10;
/** An agent that sends nothing for this long is let go (its client starts a new session). */
const IDLE_TIMEOUT_MS = 30 * 60 * 1000;

export interface NotebookServerOptions {
  executor: Executor;
  cwd: string;
  /** The notebook's default language (whether its session needs a Python). */
  language: Language;
  env: NodeJS.ProcessEnv;
  /** `HOST:PORT` on loopback; default 127.0.0.1 on a free port. */
  address?: string;
  /** Where the agents' calls go in the notebook. */
  calls: ServedCalls;
}

/** What the agents are told of these kernels: whose they are, and which sandbox applies. */
export function aboutKernels(executor: Executor): string {
  const sandbox = sandboxOf(executor.settings);
  const boundary =
    sandbox.mode === 'off'
      ? executor.settings['jupyter.url']
        ? "The local sandbox is off (the person's choice)."
        : "No sandbox: cells run with the person's own permissions, files, network and environment (the person's choice; only the person can change it)."
      : `The sandbox described above applies (the person's choice).`;
  return `Whose kernels: these are the live kernels of a person's notebook (omp-eval --serve-mcp), shared with you. The person sees your cells as they run, may run cells of their own between your calls (your next result then starts with a note of what they ran and which names changed) and may interrupt yours (the result then says so). The names and data already loaded are the person's: list them with "variables" before you replace any, and call "restart" only when the person asks. ${boundary}`;
}

/** The notebook's lines on the sandbox and the environment the agents' cells get. */
function boundaryLines(executor: Executor): string[] {
  const sandbox = sandboxOf(executor.settings);
  const summary = sandboxSummary(sandbox);
  const envWhole = executor.settings['env.filter'] === false;
  return [
    summary
      ? `The agents' cells run in the sandbox: ${summary}`
      : "The agents' cells run unsandboxed, with your permissions, files and network (start omp-eval with --sandbox workspace-write to confine the kernels).",
    envWhole
      ? 'The kernels have your whole environment (start with --serve-mcp, or --env-filter on, to filter it).'
      : 'The kernels have the filtered environment (no credentials).',
  ];
}

export class NotebookServer {
  /** The agents' sessions now connected, with the notes each was told since its last call. */
  private readonly agents = new Map<KernelSession, { notes: number }>();
  private stopping?: Promise<void>;

  private constructor(
    private readonly http: McpHttpServer,
    private readonly session: Session,
    readonly url: string,
    readonly token: string,
    /** The token came from OMP_EVAL_MCP_TOKEN (the snippets read it from there too). */
    readonly tokenFromEnv: boolean,
    private readonly executor: Executor,
  ) {}

  static async start(opts: NotebookServerOptions): Promise<NotebookServer> {
    const { host, port } = parseListenAddress(opts.address || '127.0.0.1:0');
    const { token, generated } = bearerToken(opts.env);
    const settings = opts.executor.settings;
    // The notebook's own kernel set: the executor gives every owner of its key the same kernels.
    const session = await opts.executor.session({
      id: 'notebook',
      cwd: opts.cwd,
      requirePython: opts.language === 'py',
    });
    let server: NotebookServer | undefined;
    const http = new McpHttpServer({
      settings,
      cwd: session.cwd,
      env: opts.env,
      host,
      port,
      token,
      caps: new ServerCaps(settings['mcp.maxSessions'], settings['mcp.maxKernels']),
      idleTimeoutMs: IDLE_TIMEOUT_MS,
      notebook: {
        session: (mcp) => {
          const agent = new KernelSession(SESSION, session.cwd, settings, mcp, undefined, {
            executor: opts.executor,
            session,
          });
          server?.follow(agent, opts.calls);
          return agent;
        },
        about: aboutKernels(opts.executor),
      },
    });
    let url: string;
    try {
      url = await http.listen();
    } catch (err) {
      await session.release();
      throw err;
    }
    server = new NotebookServer(http, session, url, token, !generated, opts.executor);
    return server;
  }

  private follow(agent: KernelSession, calls: ServedCalls): void {
    const told = { notes: 0 };
    this.agents.set(agent, told);
    const unsubscribe = agent.feed.subscribe((message) => {
      if (message.t === 'call' && message.by !== 'person') told.notes = 0;
      if (message.t === 'ended') {
        this.agents.delete(agent);
        unsubscribe();
      }
    }, 0);
    calls.follow(agent);
  }

  /** How many agents are connected now (their first call made their session). */
  get agentCount(): number {
    return this.agents.size;
  }

  /** What /serve prints once serving. */
  describe(): string {
    const token = this.tokenFromEnv ? '(from OMP_EVAL_MCP_TOKEN)' : this.token;
    const header = this.tokenFromEnv ? `Bearer $OMP_EVAL_MCP_TOKEN` : `Bearer ${this.token}`;
    return [
      `Serving this notebook's kernels over MCP (Streamable HTTP): ${this.url}`,
      `Bearer token: ${token}`,
      ...boundaryLines(this.executor),
      `Claude Code: claude mcp add --transport http omp-eval ${this.url} --header "Authorization: ${header}"`,
      `/serve config ${CLIENTS.filter((c) => c !== 'claude-desktop').join('|')} prints a client's configuration; /serve off stops serving.`,
    ].join('\n');
  }

  /** A client's configuration for this server (the token stays out of it: OMP_EVAL_MCP_TOKEN). */
  config(client: string): string {
    if (!(CLIENTS as readonly string[]).includes(client)) return `usage: /serve config ${CLIENTS.join('|')}`;
    const { snippet, where } = configSnippet(client as ClientName, {
      command: process.execPath,
      args: [],
      url: this.url,
    });
    const token = this.tokenFromEnv
      ? 'The client reads the token from OMP_EVAL_MCP_TOKEN, as this notebook did.'
      : `Set OMP_EVAL_MCP_TOKEN=${this.token} in the environment the client starts from.`;
    return `${snippet.trimEnd()}\n${where}\n${token}`;
  }

  /**
   * Runs a cell the person typed (`run`, the notebook's own path) and tells every connected agent
   * what it did: its first line, how it ended, the names it defined, changed or deleted.
   */
  async personCell(code: string, language: Language, run: () => Promise<CellResult>): Promise<CellResult> {
    if (!this.agents.size) return run();
    const before = this.session.kernelOf(language)
      ? await namesOf(this.session, language)
      : new Map<string, string>();
    const result = await run();
    if (result.status === 'skipped' || !this.agents.size) return result;
    const after = await namesOf(this.session, language);
    const names = before && after ? nameChanges(before, after) : undefined;
    const note = personNote(language, code, result, names, PERSON);
    for (const [agent, told] of this.agents) {
      told.notes++;
      if (told.notes <= NOTES_PER_CALL) agent.tell(note);
      else if (told.notes === NOTES_PER_CALL + 1)
        agent.tell(`${PERSON} ran more cells after these; call "variables" to see the names defined now.`);
    }
    return result;
  }

  /**
   * Stops serving: calls in flight are answered with an error that says `why` (their running cell
   * is interrupted, queued ones never run); the notebook keeps its kernels. Idempotent.
   */
  stop(why: string): Promise<void> {
    this.stopping ??= this.http.close(why).finally(() => this.session.release());
    return this.stopping;
  }
}
