/**
 * `omp-eval mcp`: the retained kernels as an MCP server, over stdio (default) or Streamable HTTP
 * on loopback (`--http HOST:PORT`); `--print-config CLIENT` prints a client's configuration.
 */
// Each way of serving loads its own modules when it runs: the MCP SDK's server and zod for stdio,
// its HTTP transport for --http (which loads Node's fetch, undici), neither for --print-config.
import {
  backendAvailability,
  checkCwd,
  checkSandbox,
  ExecutorError,
  type PrestartedKernel,
  prestartPython,
  SandboxError,
  type Settings,
  SettingsError,
  sandboxOf,
  streamLogger,
} from './engine.js';
import { bearerToken, HttpOptionError, parseListenAddress } from './httpOptions.js';
import { ServerCaps } from './limits.js';
import type { ClientName } from './printConfig.js';
import { unsafeWorkspace, workspaceRefusal } from './workspace.js';

const DEFAULT_IDLE_TIMEOUT_S = 30 * 60;

export interface McpCommandOptions {
  /** The settings of every kernel (defaults, config file, flags); a thunk so errors are reported here. */
  settings: () => Promise<Settings>;
  cwd: string;
  http?: string;
  /** Seconds an HTTP session may stay idle before its kernels are shut down. */
  idleTimeout?: number;
  /** The server's caps (--max-sessions, --max-kernels); unset: the settings mcp.maxSessions, mcp.maxKernels. */
  maxSessions?: number;
  maxKernels?: number;
  printConfig?: ClientName;
  env?: NodeJS.ProcessEnv;
  argv?: string[];
  /** The stdio transport's input (its output is `out`, its diagnostics `err`). */
  stdin?: NodeJS.ReadableStream;
  out?: NodeJS.WritableStream;
  err?: NodeJS.WritableStream;
}

/** Runs the command; resolves with the exit code. */
export async function runMcpCommand(opts: McpCommandOptions): Promise<number> {
  const out = opts.out ?? process.stdout;
  const err = opts.err ?? process.stderr;
  const env = opts.env ?? process.env;
  try {
    const address = opts.http === undefined ? undefined : parseListenAddress(opts.http);
    if (opts.printConfig) {
      const { configSnippet, invocationFromArgv } = await import('./printConfig.js');
      const invocation = invocationFromArgv(opts.argv ?? process.argv, undefined, env, opts.cwd);
      if (address) {
        if (address.port === 0)
          throw new HttpOptionError('--print-config with --http needs a fixed port, not 0');
        const host = address.host.includes(':') ? `[${address.host}]` : address.host;
        invocation.url = `http://${host}:${address.port}/mcp`;
      }
      const { snippet, where } = configSnippet(opts.printConfig, invocation);
      out.write(snippet);
      err.write(`${where}\n`);
      if (address) {
        err.write(
          `Start the server yourself with OMP_EVAL_MCP_TOKEN set (at least 16 characters) in both environments: omp-eval mcp --http ${opts.http}\n`,
        );
      }
      return 0;
    }
    const settings = await opts.settings();
    const cwd = checkCwd(opts.cwd);
    const sandbox = sandboxOf(settings, env);
    await checkSandbox(sandbox); // an agent's code never runs unsandboxed by mistake
    const unsafe = sandbox.mode === 'workspace-write' ? unsafeWorkspace(cwd) : undefined;
    if (unsafe) {
      // (not refused here: a client that offers roots gives the workspace; eval calls say it otherwise)
      err.write(
        `omp-eval mcp: warning: eval calls will be refused unless the client offers MCP roots. ${workspaceRefusal(cwd, unsafe, 'cwd')}\n`,
      );
    }
    const caps = new ServerCaps(
      opts.maxSessions ?? settings['mcp.maxSessions'],
      opts.maxKernels ?? settings['mcp.maxKernels'],
    );
    const keepaliveMs = keepaliveFrom(env);
    const unshare = shareWhileServing(env, err, address ? 'http' : 'stdio');
    if (!address) {
      // The first session's Python kernel starts while the server loads (the SDK, zod: most of
      // the time to the first answer), as `run` and `tool` start theirs: spawned first, since
      // loading the SDK keeps the event loop busy for as long as it takes.
      const prestarted = await prestartFirstKernel(settings, cwd, env, err);
      const { serveStdio } = await import('./stdio.js');
      return await serveStdio({
        settings,
        cwd,
        env,
        caps,
        stdin: opts.stdin ?? process.stdin,
        stdout: out,
        stderr: err,
        ...keepaliveMs,
        ...(prestarted ? { prestarted } : {}),
      }).finally(unshare);
    }
    const { token, generated } = bearerToken(env);
    const { McpHttpServer } = await import('./http.js');
    const server = new McpHttpServer({
      settings,
      cwd,
      env,
      ...address,
      token,
      caps,
      ...keepaliveMs,
      idleTimeoutMs: (opts.idleTimeout ?? DEFAULT_IDLE_TIMEOUT_S) * 1000,
    });
    const url = await server.listen();
    out.write(`omp-eval mcp: serving MCP (Streamable HTTP) at ${url}\n`);
    out.write(
      generated
        ? `omp-eval mcp: bearer token ${token}\n`
        : 'omp-eval mcp: bearer token from OMP_EVAL_MCP_TOKEN\n',
    );
    return await untilSignal((signal) => server.close(`omp-eval mcp is shutting down (${signal})`)).finally(
      unshare,
    );
  } catch (error) {
    const known =
      error instanceof HttpOptionError ||
      error instanceof SettingsError ||
      error instanceof ExecutorError ||
      error instanceof SandboxError;
    const listenError = (error as NodeJS.ErrnoException).code === 'EADDRINUSE';
    err.write(
      `omp-eval mcp: ${known || listenError ? (error as Error).message : ((error as Error).stack ?? error)}\n`,
    );
    return known && !(error instanceof ExecutorError || error instanceof SandboxError) ? 2 : 1;
  }
}

/**
 * The process of the Python kernel the first eval call will probably need (local, unsandboxed:
 * prestartPython starts nothing otherwise), spawned in --cwd; the first session takes it when its
 * workspace is that folder (a client's roots may name another), and it is stopped otherwise.
 */
async function prestartFirstKernel(
  settings: Settings,
  cwd: string,
  env: NodeJS.ProcessEnv,
  err: NodeJS.WritableStream,
): Promise<PrestartedKernel | undefined> {
  if (!backendAvailability(settings, env).py) return undefined;
  return prestartPython(settings, { cwd, hostEnv: env, logger: streamLogger(err) }).catch(() => undefined);
}

/**
 * Publishes the server's sessions for `omp-eval attach` (loaded and started beside the serving);
 * returns what ends it.
 */
function shareWhileServing(
  env: NodeJS.ProcessEnv,
  err: NodeJS.WritableStream,
  transport: 'stdio' | 'http',
): () => Promise<void> {
  const share = import('../share/publisher.js').then((m) => m.shareSessions(env, err, transport));
  return () => share.then((p) => p?.close("the agent's omp-eval mcp server ended"));
}

/** OMP_EVAL_MCP_KEEPALIVE_MS: the longest silence in a call's progress (tests shorten it). */
function keepaliveFrom(env: NodeJS.ProcessEnv): { keepaliveMs?: number } {
  const ms = Number(env.OMP_EVAL_MCP_KEEPALIVE_MS);
  return env.OMP_EVAL_MCP_KEEPALIVE_MS && Number.isFinite(ms) && ms >= 10 ? { keepaliveMs: ms } : {};
}

/** Waits for SIGINT, SIGTERM or SIGHUP, then shuts down; resolves with the signal's exit code. */
function untilSignal(shutdown: (signal: string) => Promise<void>): Promise<number> {
  return new Promise((resolve) => {
    const codes: Partial<Record<NodeJS.Signals, number>> = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 };
    const handlers = Object.entries(codes).map(([signal, code]) => {
      const handler = () => {
        for (const [s, h] of handlers) process.off(s, h);
        void shutdown(signal).finally(() => resolve(code as number));
      };
      process.on(signal, handler);
      return [signal, handler] as const;
    });
  });
}
