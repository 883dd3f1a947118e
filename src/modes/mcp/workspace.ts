/**
 * Where a connection's kernels work: the client's MCP roots when it offers them (the first root
 * is the working directory, the others writable roots of the sandbox), else the server's --cwd.
 * Neither `/` nor the home folder is taken as the writable workspace: a sandboxed kernel cannot
 * start in `/`, and in $HOME every file of the user would be the cells' to write.
 */
import { statSync } from 'node:fs';
import { homedir } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Root } from '@modelcontextprotocol/sdk/types.js';
import { checkCwd, type Settings, sandboxOf } from './engine.js';

export interface Workspace {
  cwd: string;
  /** Further writable directories (the client's other roots). */
  writableRoots: string[];
  /** Where it came from, for messages. */
  from: 'roots' | 'cwd';
}

export class WorkspaceError extends Error {}

/** Why `dir` cannot be the writable workspace, or undefined when it can. */
export function unsafeWorkspace(dir: string, home = homedir()): string | undefined {
  if (dir === '/') return 'is the root of the file system';
  let realHome = home;
  try {
    realHome = checkCwd(home);
  } catch {
    // no home folder: nothing to compare
  }
  if (dir === realHome) return 'is your home folder';
  return undefined;
}

/** The sentence that says what to pass instead. */
export function workspaceRefusal(dir: string, why: string, from: Workspace['from']): string {
  const source =
    from === 'roots'
      ? `The client's first root, ${dir}, ${why}`
      : `The working directory ${dir} ${why} (the client started omp-eval mcp there)`;
  return `${source}: omp-eval mcp will not make it the kernels' writable workspace. Pass the project's folder with --cwd in the client's configuration, e.g. omp-eval --cwd /path/to/project mcp (omp-eval --cwd /path/to/project mcp --print-config CLIENT prints it), or open a folder in a client that offers MCP roots.`;
}

/** The workspace the roots describe: the directories of their file:// URIs, the first the cwd. */
function rootsWorkspace(roots: Root[]): Workspace | undefined {
  const dirs: string[] = [];
  for (const root of roots) {
    if (!root.uri.startsWith('file://')) continue;
    try {
      const dir = checkCwd(fileURLToPath(root.uri));
      if (statSync(dir).isDirectory() && !dirs.includes(dir)) dirs.push(dir);
    } catch {
      // a root that is no directory here (another machine's, gone): left out
    }
  }
  const [cwd, ...writableRoots] = dirs;
  return cwd ? { cwd, writableRoots, from: 'roots' } : undefined;
}

/**
 * The workspace checked: under a sandbox that writes the workspace, `/` and the home folder are
 * refused as its cwd (WorkspaceError), and left out as further roots.
 */
function checkedWorkspace(ws: Workspace, writes: boolean, home = homedir()): Workspace {
  if (!writes) return ws;
  const why = unsafeWorkspace(ws.cwd, home);
  if (why) throw new WorkspaceError(workspaceRefusal(ws.cwd, why, ws.from));
  return { ...ws, writableRoots: ws.writableRoots.filter((d) => !unsafeWorkspace(d, home)) };
}

/** Where a connection's new sessions work, with the client's roots asked once (again after they changed). */
export class ClientWorkspace {
  private roots?: Promise<Workspace | undefined>;

  constructor(
    private readonly server: Server,
    private readonly opts: { settings: Settings; cwd: string; env?: NodeJS.ProcessEnv; home?: string },
  ) {}

  /** The client said its roots changed: sessions opened from now on work there (open ones stay). */
  rootsChanged(): void {
    this.roots = undefined;
  }

  /**
   * The client's roots if it offers them (the first the cwd, the others writable), else --cwd;
   * `/` and the home folder refused (WorkspaceError).
   */
  async get(): Promise<Workspace> {
    const writes = sandboxOf(this.opts.settings, this.opts.env ?? process.env).mode === 'workspace-write';
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
}
