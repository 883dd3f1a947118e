/**
 * The notebook's backend with `/serve` (and `omp-eval --serve-mcp`): its own backend, plus the
 * agents' calls queued and replayed as `omp-eval attach` shows them (servedCalls.ts), Ctrl-C on an
 * agent's cell interrupting it for the person, and the person's cells told to the agents. The MCP
 * server (notebookServer.ts, and with it the SDK) loads at the first /serve.
 */
import { type CellResult, cellLanguage, type Executor, type Language } from '../../eval/index.js';
import type { CellRun, NotebookBackend } from '../../tui/backend.js';
import type { NotebookServer } from './notebookServer.js';
import { ServedCalls } from './servedCalls.js';

export interface ServeOptions {
  executor: Executor;
  cwd: string;
  /** The notebook's default language. */
  language: Language;
  /** Where OMP_EVAL_MCP_TOKEN is read. */
  env: NodeJS.ProcessEnv;
  /** Serve from the start (`--serve-mcp`): the address (`''`: 127.0.0.1 on a free port). */
  serveAtStart?: string;
}

/** Why the agents' calls in flight fail when the person stops serving. */
export const SERVING_STOPPED = 'The person stopped sharing this notebook (/serve off)';
const NOTEBOOK_ENDED = 'The notebook this server shared ended';

export class ServedNotebook implements NotebookBackend {
  private readonly calls = new ServedCalls();
  private server?: NotebookServer;
  private starting?: Promise<NotebookServer>;
  private readonly noticeListeners = new Set<(text: string) => void>();
  /** Notices made before the notebook listened (serving started with the notebook). */
  private readonly waitingNotices: string[] = [];

  constructor(
    private readonly inner: NotebookBackend,
    private readonly opts: ServeOptions,
  ) {
    this.calls.onNotice((text) => this.notice(text));
    if (opts.serveAtStart !== undefined)
      void this.serve(opts.serveAtStart).then(
        (text) => this.notice(text),
        (err: Error) => this.notice(`--serve-mcp: ${err.message}`),
      );
  }

  get cwd() {
    return this.inner.cwd;
  }
  get mode() {
    return this.inner.mode;
  }
  get sandbox() {
    return this.inner.sandbox;
  }
  get env() {
    return this.inner.env;
  }
  get jupyter() {
    return this.inner.jupyter;
  }
  get python() {
    return this.inner.python;
  }
  get version() {
    return this.inner.version;
  }
  get nodeVersion() {
    return this.inner.nodeVersion;
  }
  get language() {
    return this.inner.language;
  }
  get remote() {
    return this.inner.remote;
  }

  start = () => this.inner.start();
  complete = (code: string, cursor: number) => this.inner.complete(code, cursor);
  isComplete = (text: string) => this.inner.isComplete(text);
  onBackground: NotebookBackend['onBackground'] = (listener) => this.inner.onBackground(listener);
  onKernelState: NotebookBackend['onKernelState'] = (listener) => this.inner.onKernelState(listener);
  sendInput = (value: string | null) => this.inner.sendInput(value);
  restart = () => this.inner.restart();
  kernelState = () => this.inner.kernelState();
  onAgentCells: NonNullable<NotebookBackend['onAgentCells']> = (listener) =>
    this.calls.onAgentCells(listener);

  async runCell(run: CellRun): Promise<CellResult> {
    if (run.party) return this.calls.replay({ ...run, party: run.party });
    const server = this.server;
    if (!server) return this.inner.runCell(run);
    const { code, language } = cellLanguage(run.code, this.inner.language);
    return server.personCell(code, language, () => this.inner.runCell(run));
  }

  /** Ctrl-C: the agent's cell the notebook shows running is interrupted for the person, else the notebook's. */
  interrupt(): void {
    if (!this.calls.interrupt()) this.inner.interrupt();
  }

  onNotice(listener: (text: string) => void): () => void {
    this.noticeListeners.add(listener);
    for (const text of this.waitingNotices.splice(0)) listener(text);
    return () => this.noticeListeners.delete(listener);
  }

  private notice(text: string): void {
    if (this.noticeListeners.size) for (const listener of this.noticeListeners) listener(text);
    else this.waitingNotices.push(text);
  }

  /** `/serve [HOST:PORT]`, `/serve off`, `/serve config CLIENT`: what to print. */
  async serve(args: string): Promise<string> {
    const [word = '', client = ''] = args.split(/\s+/);
    if (word === 'off') {
      const server = this.server ?? (await this.starting?.catch(() => undefined));
      if (!server) return 'Not serving: nothing to stop.';
      await this.stopServing(SERVING_STOPPED);
      return "Stopped serving: the agents' calls in flight were answered with an error, and new ones cannot connect. The kernels keep their state.";
    }
    if (word === 'config') {
      if (!this.server)
        return 'Not serving: /serve starts it, then /serve config CLIENT prints the configuration.';
      return this.server.config(client);
    }
    if (this.server || this.starting) {
      const server = this.server ?? (await this.starting);
      return `Already serving (/serve off stops).\n${server?.describe() ?? ''}`;
    }
    const { NotebookServer } = await import('./notebookServer.js');
    this.starting = NotebookServer.start({
      ...this.opts,
      calls: this.calls,
      ...(word ? { address: word } : {}),
    });
    try {
      this.server = await this.starting;
    } finally {
      this.starting = undefined;
    }
    return this.server.describe();
  }

  private async stopServing(why: string): Promise<void> {
    const server = this.server;
    this.server = undefined;
    await server?.stop(why);
    this.calls.endAll(why);
  }

  async dispose(): Promise<void> {
    await this.starting?.catch(() => undefined);
    await this.stopServing(NOTEBOOK_ENDED);
    await this.inner.dispose();
  }
}

/** The notebook's backend `inner` with /serve. */
export function servedBackend(inner: NotebookBackend, opts: ServeOptions): NotebookBackend {
  return new ServedNotebook(inner, opts);
}
