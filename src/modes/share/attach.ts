/**
 * `omp-eval attach`: `--list` lists the user's live `omp-eval mcp` servers and their sessions;
 * `attach [SESSION]` opens the notebook on one, following the agent's calls as they run.
 * Leaving it (Ctrl-D) leaves the agent's session running.
 */
import type { ImageMode } from '../../tui/rendering/images.js';
import { ATTACH_HISTORY, attachedBackend } from './attachBackend.js';
import { discover, type LiveServer, pickSession, ShareConnection, ShareConnectionError } from './client.js';
import type { SessionInfo } from './protocol.js';
import { ShareDirError } from './runtimeDir.js';

export interface AttachOptions {
  session?: string;
  list?: boolean;
  images: ImageMode;
  env?: NodeJS.ProcessEnv;
  out?: NodeJS.WritableStream;
  err?: NodeJS.WritableStream;
}

/** `3 min`, `12 s`, `1 h 5 min`: how long a session has been idle. */
function formatIdle(ms: number): string {
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s} s`;
  const min = Math.floor(s / 60);
  if (min < 60) return `${min} min`;
  return `${Math.floor(min / 60)} h ${min % 60} min`;
}

/** The table `attach --list` prints. */
function sessionTable(servers: LiveServer[]): string {
  const header = ['SESSION', 'NAME', 'CLIENT', 'LANGUAGES', 'CELLS', 'IDLE', 'DIRECTORY'];
  const rows = servers.flatMap((server) =>
    server.sessions.map((s: SessionInfo) => [
      s.id,
      s.name,
      s.client ?? '-',
      s.languages.length ? s.languages.join(',') : '-',
      String(s.cellsRun),
      s.busy ? 'running' : formatIdle(s.idleMs),
      s.cwd,
    ]),
  );
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] as string).length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] as number)))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}

/** Runs the command; resolves with the exit code. */
export async function runAttach(opts: AttachOptions): Promise<number> {
  const out = opts.out ?? process.stdout;
  const err = opts.err ?? process.stderr;
  let found: Awaited<ReturnType<typeof discover>>;
  try {
    found = await discover(opts.env);
  } catch (error) {
    if (error instanceof ShareDirError) {
      err.write(`omp-eval attach: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
  for (const problem of found.problems) err.write(`omp-eval attach: warning: ${problem}\n`);
  if (opts.list) {
    if (!found.servers.length) {
      out.write(`No omp-eval mcp server of yours is running (none has published in ${found.dir}).\n`);
      return 0;
    }
    const count = found.servers.length;
    const servers = `${count} omp-eval mcp server${count > 1 ? 's' : ''} (pid ${found.servers.map((s) => s.pid).join(', ')})`;
    if (!found.servers.some((s) => s.sessions.length)) {
      out.write(`${servers}, no session yet: an agent's session starts with its first eval call.\n`);
      return 0;
    }
    out.write(`${sessionTable(found.servers)}\n`);
    return 0;
  }
  const picked = pickSession(found.servers, opts.session);
  if ('problem' in picked) {
    err.write(`omp-eval attach: ${picked.problem}\n`);
    if (found.servers.some((s) => s.sessions.length)) err.write(`${sessionTable(found.servers)}\n`);
    return 1;
  }
  if (!process.stdin.isTTY || !process.stdout.isTTY) {
    err.write('omp-eval attach: the notebook needs a terminal (omp-eval attach --list works anywhere)\n');
    return 2;
  }
  let connection: ShareConnection;
  try {
    connection = await ShareConnection.open(picked.server.path, found.secret as string);
    connection.send({ t: 'subscribe', session: picked.session.id, history: ATTACH_HISTORY });
    await connection.next(['subscribed']);
  } catch (error) {
    if (error instanceof ShareConnectionError || (error as NodeJS.ErrnoException).code) {
      err.write(`omp-eval attach: cannot follow session ${picked.session.id}: ${(error as Error).message}\n`);
      return 1;
    }
    throw error;
  }
  const backend = attachedBackend(connection, picked.session);
  const { runAttachedNotebook } = await import('../../tui/index.js');
  await runAttachedNotebook(backend, { images: opts.images });
  if (backend.endedWith !== undefined) {
    err.write(`omp-eval attach: ${backend.endedWith}; the notebook ended.\n`);
    return 0;
  }
  err.write(`omp-eval attach: detached; the agent's session ${picked.session.id} keeps running.\n`);
  return 0;
}
