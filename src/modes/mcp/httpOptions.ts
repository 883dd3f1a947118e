/**
 * What `omp-eval mcp --http` reads before it serves: the listen address and the bearer token. A
 * module of its own so that reading them loads nothing of the HTTP server (http.ts loads the SDK's
 * Streamable HTTP transport, and with it Node's fetch implementation, undici): stdio never needs it.
 */
import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';

const MIN_TOKEN_LENGTH = 16;

export class HttpOptionError extends Error {}

/** `HOST:PORT`, `[::1]:PORT` or `PORT`, on a loopback address; anything else is refused. */
export function parseListenAddress(value: string): { host: string; port: number } {
  const match = /^(?:\[([^\]]+)\]|([^:]*)):(\d+)$/.exec(value) ?? /^()()(\d+)$/.exec(value);
  if (!match)
    throw new HttpOptionError(`--http takes HOST:PORT (for example 127.0.0.1:8765), got "${value}"`);
  const host = match[1] || match[2] || '127.0.0.1';
  const port = Number(match[3]);
  if (port > 65535) throw new HttpOptionError(`--http: port ${port} is out of range (0-65535)`);
  const loopback = host === 'localhost' || host === '::1' || (isIP(host) === 4 && host.startsWith('127.'));
  if (!loopback) {
    throw new HttpOptionError(
      `--http: ${host} is not a loopback address. omp-eval mcp runs code for whoever connects, so it only listens on 127.0.0.1, ::1 or localhost.`,
    );
  }
  return { host: host === 'localhost' ? '127.0.0.1' : host, port };
}

/** The token clients must send: OMP_EVAL_MCP_TOKEN, or a new random one. */
export function bearerToken(env: NodeJS.ProcessEnv): { token: string; generated: boolean } {
  const fromEnv = env.OMP_EVAL_MCP_TOKEN;
  if (fromEnv === undefined || fromEnv === '')
    return { token: randomBytes(32).toString('base64url'), generated: true };
  if (fromEnv.trim().length < MIN_TOKEN_LENGTH)
    throw new HttpOptionError(`OMP_EVAL_MCP_TOKEN must be at least ${MIN_TOKEN_LENGTH} characters long`);
  return { token: fromEnv.trim(), generated: false };
}
