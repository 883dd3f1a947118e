/**
 * A Jupyter server (Jupyter Server, JupyterHub's single-user servers, Enterprise Gateway) through
 * the Jupyter project's own client, @jupyterlab/services: REST calls for kernel specs, starting,
 * finding, interrupting and restarting kernels; its KernelConnection for the websocket. The
 * library and `ws` are loaded on first use, so no other command pays for them. The token goes in
 * an `Authorization: token ...` header on every request, the websocket's included: a `?token=` in
 * a URL ends up in proxies' and servers' access logs. No message names the URL's credentials.
 */
import type { KernelAPI, KernelConnection, KernelSpecAPI, ServerConnection } from '@jupyterlab/services';
import type WebSocket from 'ws';
import { KernelStartError } from '../kernel/types.js';
import { type Logger, silentLogger } from '../logger.js';
import { withQuickAck } from './quickAck.js';
import { divertLibraryConsole } from './quietConsole.js';
import { hasUserInfo, redactText, redactUrl, scrub } from './redact.js';

/** How long one REST call may take before the server counts as not answering. */
export const REQUEST_TIMEOUT_MS = 10_000;

export interface RemoteOptions {
  /** The server's base URL (`http://host:8888/`, `https://hub.example.org/user/ann/`). */
  url: string;
  /** The server's token (else none: a server without authentication). */
  token?: string;
  /** The kernelspec of a kernel to start (default: the server's default). */
  kernelName?: string;
  /** A kernel already running on the server, to attach to (its state intact). */
  kernelId?: string;
}

interface Client {
  ServerConnection: typeof ServerConnection;
  KernelAPI: typeof KernelAPI;
  KernelSpecAPI: typeof KernelSpecAPI;
  KernelConnection: typeof KernelConnection;
  WebSocket: typeof WebSocket;
}

let client: Promise<Client> | undefined;

function loadClient(): Promise<Client> {
  client ??= Promise.all([import('@jupyterlab/services'), import('ws')]).then(([services, ws]) => ({
    ServerConnection: services.ServerConnection,
    KernelAPI: services.KernelAPI,
    KernelSpecAPI: services.KernelSpecAPI,
    KernelConnection: services.KernelConnection,
    WebSocket: ws.default,
  }));
  return client;
}

/** The URL checked and split into the REST and websocket bases, and how messages name it. */
export function parseServerUrl(url: string): { baseUrl: string; wsUrl: string; display: string } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new KernelStartError(
      `--jupyter needs a server URL such as http://127.0.0.1:8888/, got ${JSON.stringify(redactUrl(url))}`,
    );
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new KernelStartError(
      `--jupyter needs an http:// or https:// URL, got ${JSON.stringify(redactUrl(url))}`,
    );
  // A Jupyter server authenticates by token, never by a password in the URL: one there is refused
  // (fetch would refuse it anyway, repeating the whole URL in its error).
  if (hasUserInfo(url))
    throw new KernelStartError(
      `the --jupyter URL has a user name or password in it (not shown), which a Jupyter server does not take: use ${redactUrl(url)} and give the server's token with --token or JUPYTER_TOKEN`,
    );
  // A token in the URL (as `jupyter server list` prints it) counts as --token.
  parsed.search = '';
  parsed.hash = '';
  if (!parsed.pathname.endsWith('/')) parsed.pathname += '/';
  const baseUrl = parsed.toString();
  const wsUrl = `ws${baseUrl.slice(4)}`;
  const display = labelOf(parsed);
  return { baseUrl, wsUrl, display };
}

/** Host, port and path: how messages name a server (never the user info or the query). */
function labelOf(parsed: URL): string {
  return `${parsed.host}${parsed.pathname === '/' || parsed.pathname === '' ? '' : parsed.pathname.replace(/\/$/, '')}`;
}

/** How messages and the status line name the server at `url`: no credentials, even when the URL is refused. */
export function serverLabel(url: string): string {
  try {
    return labelOf(new URL(url));
  } catch {
    return redactUrl(url);
  }
}

/** The token given in the URL's query (`?token=...`), if any. */
function tokenInUrl(url: string): string | undefined {
  try {
    return new URL(url).searchParams.get('token') ?? undefined;
  } catch {
    return undefined;
  }
}

/**
 * The websocket class that sends `token` in an `Authorization` header at the handshake (the
 * library would otherwise put it in the URL's query; `ws` takes headers, browsers do not).
 */
function withTokenHeader(base: typeof WebSocket, token: string): typeof WebSocket {
  if (!token) return base;
  return class TokenSocket extends base {
    constructor(address: string | URL, protocols?: string | string[]) {
      super(address, protocols, { headers: { Authorization: `token ${token}` } });
    }
  } as unknown as typeof WebSocket;
}

/** What a failed fetch says: the network's reason, not just "fetch failed". */
function fetchFailure(err: unknown): string {
  const e = err as Error & { cause?: { code?: string; message?: string } };
  if (e.name === 'TimeoutError') return `no answer within ${REQUEST_TIMEOUT_MS / 1000} s`;
  return e.cause?.message ?? e.cause?.code ?? e.message;
}

/** The status of the answer made up for a request that got none (the network failed). */
const NO_ANSWER = 599;

/**
 * fetch with a deadline. A request that gets no answer is answered with status 599 and the
 * network's reason: the client library would take a thrown error for a passing network glitch
 * and retry for ever (a kernel "reconnecting" to a server that is gone), an answer it reports.
 */
const boundedFetch: typeof fetch = async (input, init) => {
  try {
    return await fetch(input, { ...init, signal: init?.signal ?? AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  } catch (err) {
    return new Response(JSON.stringify({ message: fetchFailure(err) }), {
      status: NO_ANSWER,
      headers: { 'Content-Type': 'application/json' },
    });
  }
};

export type Settings = ServerConnection.ISettings;

/** One Jupyter server: its settings for the client library and its REST calls, with clear errors. */
export class RemoteServer {
  readonly display: string;
  private readonly baseUrl: string;
  private readonly wsUrl: string;

  constructor(
    readonly options: RemoteOptions,
    private readonly logger: Logger = silentLogger,
    private readonly trace = false,
  ) {
    const { baseUrl, wsUrl, display } = parseServerUrl(options.url);
    this.baseUrl = baseUrl;
    this.wsUrl = wsUrl;
    this.display = display;
  }

  /**
   * The client library, and settings whose websockets are made by `socketClass` (a kernel
   * tracks its sockets to pause them when its front end falls behind).
   */
  async client(
    socketClass?: (base: typeof WebSocket) => typeof WebSocket,
  ): Promise<{ lib: Client; settings: Settings }> {
    const lib = await loadClient();
    divertLibraryConsole(this.logger, this.trace);
    const token = this.token;
    // REST calls get the header from the library (settings.token); the websocket from TokenSocket.
    const socket = withQuickAck(withTokenHeader(lib.WebSocket, token));
    const settings = lib.ServerConnection.makeSettings({
      baseUrl: this.baseUrl,
      wsUrl: this.wsUrl,
      token,
      appendToken: false,
      fetch: boundedFetch,
      WebSocket: (socketClass ? socketClass(socket) : socket) as unknown as typeof globalThis.WebSocket,
    });
    return { lib, settings };
  }

  /** The token: --token or JUPYTER_TOKEN, else the URL's `?token=`, else none. */
  private get token(): string {
    return this.options.token ?? tokenInUrl(this.options.url) ?? '';
  }

  /** What the library or the network said, without the token or the URL's password. */
  private scrubbed(message: string): string {
    let password: string | undefined;
    try {
      password = decodeURIComponent(new URL(this.options.url).password);
    } catch {
      password = undefined;
    }
    return scrub(redactText(message), [this.token, password]);
  }

  /** A REST call's failure as a sentence naming the server and what to do. */
  describeError(err: unknown, what: string): KernelStartError {
    const status = (err as { response?: { status?: number } }).response?.status;
    const reason = this.scrubbed((err as Error).message ?? String(err));
    const at = `the Jupyter server at ${this.display}`;
    if (status === 401 || status === 403)
      return new KernelStartError(
        `${at} refused the token (HTTP ${status}) while ${what}: give the server's token with --token or JUPYTER_TOKEN`,
      );
    if (status === 404)
      return new KernelStartError(
        `${this.display} does not look like a Jupyter server (HTTP 404 while ${what}): give the server's base URL, as \`jupyter server list\` prints it`,
      );
    if (status === undefined || status === NO_ANSWER)
      return new KernelStartError(`cannot reach ${at} while ${what}: ${reason}`);
    return new KernelStartError(`${at} answered HTTP ${status} while ${what}: ${reason}`);
  }

  /** The server's kernelspecs and default; the first call that proves the URL and the token. */
  async specs(settings: Settings): Promise<{ default: string; names: Map<string, KernelSpecSummary> }> {
    const { lib } = await this.client();
    let specs: Awaited<ReturnType<typeof KernelSpecAPI.getSpecs>>;
    try {
      specs = await lib.KernelSpecAPI.getSpecs(settings);
    } catch (err) {
      throw this.describeError(err, 'listing its kernels');
    }
    const names = new Map<string, KernelSpecSummary>();
    for (const [name, spec] of Object.entries(specs.kernelspecs)) {
      if (spec) names.set(name, { name, display_name: spec.display_name, language: spec.language });
    }
    return { default: specs.default, names };
  }

  /** Starts a kernel of `name` (default: the server's default); fails clearly for a name it lacks. */
  async startKernel(
    settings: Settings,
    name?: string,
  ): Promise<{ id: string; name: string; spec?: KernelSpecSummary }> {
    const { lib } = await this.client();
    const specs = await this.specs(settings);
    const chosen = name ?? specs.default;
    if (!specs.names.has(chosen)) {
      const offered = [...specs.names.keys()].join(', ') || 'none';
      throw new KernelStartError(
        `the Jupyter server at ${this.display} has no kernel named "${chosen}"; it offers: ${offered}`,
      );
    }
    try {
      const model = await lib.KernelAPI.startNew({ name: chosen }, settings);
      return { id: model.id, name: model.name, spec: specs.names.get(model.name) };
    } catch (err) {
      throw this.describeError(err, `starting a "${chosen}" kernel`);
    }
  }

  /** The running kernel `id`; fails clearly when the server has no such kernel (any more). */
  async findKernel(
    settings: Settings,
    id: string,
  ): Promise<{ id: string; name: string; spec?: KernelSpecSummary }> {
    const { lib } = await this.client();
    const specs = await this.specs(settings);
    let model: Awaited<ReturnType<typeof KernelAPI.getKernelModel>>;
    try {
      model = await lib.KernelAPI.getKernelModel(id, settings);
    } catch (err) {
      throw this.describeError(err, `looking for kernel ${id}`);
    }
    if (!model) {
      const running = await lib.KernelAPI.listRunning(settings).catch(() => []);
      const list = running.map((k) => `${k.id} (${k.name})`).join(', ') || 'none';
      throw new KernelStartError(
        `the Jupyter server at ${this.display} has no kernel with id ${id} (it may have been shut down); running kernels: ${list}`,
      );
    }
    return { id: model.id, name: model.name, spec: specs.names.get(model.name) };
  }
}

export interface KernelSpecSummary {
  name: string;
  display_name: string;
  language: string;
}
