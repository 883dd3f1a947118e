/**
 * One named session of an MCP connection: an executor of its own (so `completion()` calls of its
 * cells know which tool call they belong to), its retained kernels, and a queue that runs the
 * session's tool calls one at a time in the order they arrived.
 */
import { randomBytes } from 'node:crypto';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { feeds, type SessionFeed } from '../share/feed.js';
import type { ClientAsker } from './clientAsk.js';
import {
  backendAvailability,
  budgetSinkLimits,
  type CellResult,
  createExecutor,
  type EvalToolParams,
  type EvalToolResult,
  type Executor,
  LANGUAGE_LABEL,
  LANGUAGES,
  type Language,
  type PrestartedKernel,
  type RunOptions,
  runEvalTool,
  type Session,
  type Settings,
} from './engine.js';
import { followerController } from './followers.js';
import { connectionBridge } from './sampling.js';

/**
 * A person's notebook's own kernels (`omp-eval --serve-mcp`, src/modes/serve): the session runs its
 * calls in them, and leaves them running when it ends.
 */
export interface SharedKernels {
  executor: Executor;
  session: Session;
}

export class KernelSession {
  readonly executor: Executor;
  /** How the tool call whose cells run now asks its client (completion() through sampling). */
  asker?: ClientAsker;
  private tail: Promise<unknown> = Promise.resolve();
  /** Calls queued or running (a restart ends the session only when no call waits behind it). */
  private queued = 0;
  /** The languages of the call running now: its kernels count toward the cap before they start. */
  private callLanguages: Language[] = [];
  private notices: string[] = [];
  /** The retained session the eval calls run in, once the first one made it. */
  private retained?: Session;
  /** What notebooks that follow this session see (`omp-eval attach`). */
  readonly feed: SessionFeed;

  constructor(
    readonly name: string,
    readonly cwd: string,
    settings: Settings,
    server: Server,
    /** The process of its first Python kernel, spawned early (the executor checks that it fits). */
    prestarted?: PrestartedKernel,
    /** Kernels that are not the session's own (a notebook's): used, never shut down. */
    private readonly shared?: SharedKernels,
    /** The feed of this name's session before a restart of all its kernels ended it. */
    adopted?: SessionFeed,
  ) {
    this.executor =
      shared?.executor ??
      createExecutor({
        settings,
        ...(prestarted ? { prestarted } : {}),
        bridge: connectionBridge(settings, () => this.asker),
        // Its artifacts in a folder of its own: a sandboxed kernel sees no other session's outputs.
        artifactScope: `mcp-${process.pid}-${randomBytes(4).toString('hex')}`,
      });
    this.retained = shared?.session;
    const describe = () => {
      const client = server.getClientVersion()?.name;
      return { ...(client ? { client } : {}), languages: this.liveLanguages() };
    };
    // (a session opened again after a restart of all its kernels goes on with its feed: followers stay)
    this.feed = adopted && !adopted.ended ? adopted : feeds.open(name, cwd, describe);
    this.feed.describe = feeds.described(describe);
    this.feed.controller = followerController(this);
  }

  /** A person who follows this session pressed Ctrl-C while a cell of this call ran. */
  private personInterrupted = false;

  /** Interrupts the running cell for a person who follows the session; false when none runs. */
  interruptForPerson(): boolean {
    if (!this.executor.kernels.some((k) => k.state === 'busy')) return false;
    this.personInterrupted = true;
    this.executor.interruptAll();
    return true;
  }

  /** Something the agent's next result must say first. */
  tell(notice: string): void {
    this.notices.push(notice);
  }

  get mode() {
    return this.executor.settings['python.kernelMode'];
  }

  /** Runs `task` after every call queued before it. */
  enqueue<T>(task: () => Promise<T>): Promise<T> {
    this.queued++;
    const run = this.tail.then(task, task).finally(() => this.queued--);
    this.tail = run.catch(() => {});
    return run;
  }

  /** True when no call other than the running one is queued. */
  get alone(): boolean {
    return this.queued <= 1;
  }

  /** Languages with a live kernel in this session (state other than dead). */
  liveLanguages(): Language[] {
    return this.executor.kernels.filter((k) => k.state !== 'dead').map((k) => k.language);
  }

  /** Kernels held: the live ones, and those the running call may start. */
  kernelCount(): number {
    const live = this.liveLanguages();
    return live.length + this.callLanguages.filter((l) => !live.includes(l)).length;
  }

  /** The languages of `params` whose kernel would have to start (the backend is on, none is live). */
  kernelsToStart(params: EvalToolParams, env: NodeJS.ProcessEnv): Language[] {
    const available = backendAvailability(this.executor.settings, env);
    const live = this.liveLanguages();
    return this.languagesOf(params).filter((l) => available[l] && !live.includes(l));
  }

  /**
   * Counts `params`' kernels as held until `done` settles, so that a call of another session
   * checked meanwhile sees them (also while one dies and is replaced during the call).
   */
  async holdingKernels<T>(params: EvalToolParams, done: () => Promise<T>): Promise<T> {
    this.callLanguages = this.languagesOf(params);
    try {
      return await done();
    } finally {
      this.callLanguages = [];
    }
  }

  private languagesOf(params: EvalToolParams): Language[] {
    return LANGUAGES.filter((l) => params.cells.some((c) => (c.language ?? 'py') === l));
  }

  /** The retained session of this name (the one the eval calls use). */
  async session(): Promise<Session> {
    return (
      this.retained ??
      this.executor.session({ id: this.name, cwd: this.cwd, retain: true, requirePython: false })
    );
  }

  /**
   * Runs an eval call's cells through runEvalTool, as `omp-eval tool` does (its checks, its
   * output budget), every call alike. The first call makes the retained session; later ones run
   * in it without resolving the interpreter again (about 1 ms a call). The interpreter is the
   * session's until a restart.
   */
  async runCells(
    params: EvalToolParams,
    options: {
      signal: AbortSignal;
      onEvent?: RunOptions['onEvent'];
      env: NodeJS.ProcessEnv;
      /**
       * Answers a cell's input() (null: its input ends); without it cells run without stdin.
       * `ended` aborts once the cell is over (a timeout, an interrupt): the question is moot.
       */
      onInput?: (
        cellIndex: number,
        prompt: string,
        password: boolean,
        ended: AbortSignal,
      ) => Promise<string | null>;
    },
  ): Promise<EvalToolResult> {
    const { env, onEvent, onInput, ...runOptions } = options;
    let running: Session | undefined;
    /** The questions still open, by cell: a cell that ends closes its own. */
    const asking = new Map<number, AbortController>();
    const closeQuestions = (index?: number) => {
      for (const [cell, question] of asking) if (index === undefined || cell === index) question.abort();
    };
    // Followers see the call as it runs (the feed never holds the kernel's output back).
    const call = this.feed.callStarted(
      params.cells.map((c, index) => ({
        index,
        language: c.language ?? 'py',
        code: c.code,
        ...(c.title ? { title: c.title } : {}),
      })),
    );
    const told = new Set<number>();
    this.personInterrupted = false;
    let result: EvalToolResult;
    try {
      result = await runEvalTool(params, {
        executor: this.executor,
        id: this.name,
        cwd: this.cwd,
        env,
        ...runOptions,
        ...(onInput ? { allowStdin: true, onSession: (s: Session) => (running = s) } : {}),
        onEvent: (index, event) => {
          call.onEvent(index, event);
          if (event.kind === 'input_request' && onInput) {
            const question = new AbortController();
            asking.set(index, question);
            void onInput(index, event.prompt, event.password, question.signal).then((value) => {
              if (!question.signal.aborted) running?.sendInput(value);
            });
          }
          return onEvent?.(index, event);
        },
        onCellDone: (cell) => {
          closeQuestions(cell.index);
          told.add(cell.index);
          call.cellDone(cell);
        },
        // One budget for the call's text: each cell's output a share of it, whatever the count.
        sinkLimits: budgetSinkLimits(params.cells.length),
        skipText: true,
        ...(this.retained ? { session: this.retained } : {}),
      });
      // (cells that never reached the session: a backend that is off, the rest skipped)
      for (const cell of result.cells) if (!told.has(cell.index)) call.cellDone(cell);
      if (this.personInterrupted)
        for (const cell of result.cells.filter((c) => c.status === 'cancelled'))
          cell.notices.push(
            this.shared
              ? 'The person whose notebook this is (omp-eval --serve-mcp) interrupted this cell with Ctrl-C.'
              : 'A person following this session (omp-eval attach) interrupted this cell with Ctrl-C.',
          );
    } finally {
      closeQuestions();
      call.end();
    }
    if (this.mode === 'session' && !this.retained) {
      this.retained = await this.executor
        .session({ id: this.name, cwd: this.cwd, retain: true, requirePython: false })
        .catch(() => undefined);
    }
    return this.withoutRepeatedDeaths(result);
  }

  /**
   * The languages whose kernel ended in a result the model read (that result said so): the notice
   * of the next cell of that language, that a new kernel replaced it, would say it again.
   */
  private toldEnded = new Set<Language>();

  /** Notes what the model was told by a result it receives: which kernels ended. */
  delivered(cells: CellResult[]): void {
    for (const language of new Set(cells.map((c) => c.language))) {
      const kernel = this.retained?.kernelOf(language);
      if (kernel?.state === 'dead') this.toldEnded.add(language);
    }
  }

  private withoutRepeatedDeaths(result: EvalToolResult): EvalToolResult {
    if (!this.toldEnded.size) return result;
    for (const cell of result.cells) {
      if (!this.toldEnded.has(cell.language) || cell.status === 'skipped') continue;
      // (The engine's notice when a new kernel replaces one that ended unasked.)
      const replaced = `The previous ${LANGUAGE_LABEL[cell.language]} kernel `;
      cell.notices = cell.notices.filter((n) => !n.startsWith(replaced));
      this.toldEnded.delete(cell.language);
    }
    return result;
  }

  /** Restarts kernels; the next eval resolves the interpreter anew. */
  async restart(language?: Language): Promise<void> {
    const session = await this.session();
    if (!this.shared) this.retained = undefined;
    this.toldEnded.clear();
    await session.restart(language);
  }

  /** Its followers (a person's served notebook, attached notebooks) are told that `languages`' kernels restarted. */
  toldRestarted(languages: Language[]): void {
    const many = languages.length > 1;
    const kernels = `${languages.map((l) => LANGUAGE_LABEL[l]).join(' and ')} kernel${many ? 's' : ''}`;
    const gone = `the state that was in ${many ? 'them' : 'it'} is gone.`;
    this.feed.notice(
      this.shared
        ? `An agent restarted the notebook's ${kernels} (its restart tool): ${gone}`
        : `The agent restarted the ${kernels} of this session: ${gone}`,
    );
  }

  /** Languages whose kernel is alive now. */
  async running(): Promise<Language[]> {
    if (this.mode === 'per-call') return [];
    const session = await this.session();
    return LANGUAGES.filter((l) => {
      const kernel = session.kernelOf(l);
      return kernel !== undefined && kernel.state !== 'dead';
    });
  }

  /** What the next call must be told: the model never saw the result of a cancelled call. */
  noteCancelledCall(cells: CellResult[]): void {
    for (const cell of cells) {
      const label = LANGUAGE_LABEL[cell.language];
      if (cell.kernelKilled) {
        this.notices.push(
          `The previous eval call was cancelled and its cell ${cell.index + 1} did not respond to the interrupt, so the ${label} kernel was killed: the ${label} state is gone, and the next ${cell.language} cell runs in a new kernel.`,
        );
        // (this says it: not the engine's notice too, that a new kernel replaced the killed one)
        this.toldEnded.add(cell.language);
      } else if (cell.status === 'cancelled') {
        this.notices.push(
          `The previous eval call was cancelled: its cell ${cell.index + 1} was interrupted, and the ${label} kernel kept its state.`,
        );
      }
    }
  }

  takeNotices(): string[] {
    const notices = this.notices;
    this.notices = [];
    return notices;
  }

  /**
   * Shuts the kernels down; followers are told `why`. Shared kernels keep running: followers are
   * told once the calls in the queue ended (a closed connection aborted them).
   */
  async dispose(why = "the agent's session ended (all its kernels were restarted)"): Promise<void> {
    if (this.shared) {
      await this.tail;
      this.feed.end(why);
      return;
    }
    this.feed.end(why);
    return this.executor.dispose();
  }

  /**
   * Shuts the kernels down after a restart of all of them, leaving the feed to the session of the
   * same name that the next call opens: its followers are told, and stay. Until then a person's
   * cell is refused with the reason.
   */
  async restartedAway(): Promise<SessionFeed> {
    this.feed.notice(
      'The agent restarted all the kernels of this session: their state is gone, and its next call starts new ones.',
    );
    this.feed.controller = {
      run: () =>
        Promise.reject(
          new Error("the session has no kernel until the agent's next call (it restarted them all)"),
        ),
      interrupt: () => false,
    };
    await this.executor.dispose();
    return this.feed;
  }
}
