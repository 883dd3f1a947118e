/**
 * Which host paths a sandboxed kernel must not see, and which must stay read-only even inside
 * a directory it may write to. bwrap mounts over existing paths only (it would create the rest
 * on the host as mount points), so each list holds what exists now.
 *
 * Hidden (reads see an empty directory or file): the user's credentials, which every sandbox
 * we compared (Codex's, mcp-repl's) leaves readable, the Jupyter runtime files with their
 * tokens, and the private parent of the other kernels' temp dirs. `--allow-read PATH` opens one.
 *
 * Read-only inside writable roots: what a later program on the host would run or trust. A cell
 * that writes `.venv/bin/python` writes code the host runs as the interpreter, `.git/hooks` runs
 * at the user's next commit, `.mcp.json` starts servers, and omp-eval's own config, caches and
 * history decide what later runs do. `--add-writable-root` naming such a path opens it.
 */
import { lstatSync, realpathSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, isAbsolute, join, relative } from 'node:path';
import { configPath } from '../configPath.js';
import { privateDir } from '../output/privateDir.js';
import { CODE_CACHE, RUNNER_CACHE } from '../process/descriptors.js';

/** Under the user's home: credentials and tokens of common tools. */
const CREDENTIALS = [
  '.ssh',
  '.gnupg',
  '.aws',
  '.azure',
  '.config/gcloud',
  '.config/gh',
  '.kube',
  '.docker/config.json',
  '.netrc',
  '.npmrc',
  '.pypirc',
  '.git-credentials',
  '.config/git/credentials',
  '.local/share/jupyter/runtime',
];

/** Names read-only at the top of every writable directory. */
const PROTECTED_NAMES = ['.git', '.venv', 'venv', '.mcp.json', '.omp', '.vscode', '.cursor', '.codex'];

/** Where `path` is now: its real path and kind, or undefined when there is nothing there. */
function existing(path: string): { path: string; dir: boolean } | undefined {
  try {
    const st = lstatSync(path);
    if (st.isSymbolicLink()) {
      const real = realpathSync(path);
      return { path: real, dir: lstatSync(real).isDirectory() };
    }
    return { path, dir: st.isDirectory() };
  } catch {
    return undefined;
  }
}

/** True when `inner` is `outer` or lies below it. */
export function within(inner: string, outer: string): boolean {
  const rel = relative(outer, inner);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

export interface HiddenOptions {
  env: NodeJS.ProcessEnv;
  /** The private parent of the kernels' temp dirs. */
  parent: string;
  /** Paths the user opened with --allow-read. */
  allowRead: readonly string[];
}

/** What the kernel must not read. */
export function hiddenPlaces(opts: HiddenOptions): { path: string; dir: boolean }[] {
  const home = opts.env.HOME || homedir();
  const candidates = CREDENTIALS.map((rel) => join(home, rel));
  if (opts.env.XDG_RUNTIME_DIR) candidates.push(join(opts.env.XDG_RUNTIME_DIR, 'jupyter'));
  if (opts.env.JUPYTER_RUNTIME_DIR) candidates.push(opts.env.JUPYTER_RUNTIME_DIR);
  const found = candidates.map(existing).filter((p): p is { path: string; dir: boolean } => !!p);
  const allowed = opts.allowRead.map((p) => existing(p)?.path ?? p);
  const open = (p: string) => allowed.some((a) => within(p, a) || within(a, p));
  return [...found.filter((p) => !open(p.path)), { path: opts.parent, dir: true }];
}

/** omp-eval's own files on the host that decide what later runs do. */
function ownFiles(env: NodeJS.ProcessEnv, writable: readonly string[]): string[] {
  const data = env.XDG_DATA_HOME || join(env.HOME || homedir(), '.local', 'share');
  return [
    dirname(configPath(env)),
    join(data, 'omp-eval'), // the notebook's history
    ...cachesUnder(writable),
    join(env.HOME || homedir(), '.omp'), // the managed venv
  ];
}

/**
 * The caches in the temp directory, when a writable root holds it: made here if they are not
 * there yet (as their users make them, private), since only what exists can be kept read-only,
 * and a kernel that could make the code cache would have the next `run` or `tool` execute what
 * it wrote there. Elsewhere nothing is made.
 */
function cachesUnder(writable: readonly string[]): string[] {
  const tmp = existing(tmpdir())?.path;
  if (!tmp || !writable.some((dir) => within(tmp, dir))) return [];
  return [
    privateDir(tmp, RUNNER_CACHE), // runner.py, bytecode, probes, recipes
    privateDir(tmp, CODE_CACHE), // V8's code for run and tool (launch/codeCache.ts)
  ];
}

/**
 * What stays read-only though a writable directory holds it. `explicit` are the roots the user
 * named: a protected path that is one of them, or holds one, stays writable.
 */
export function readOnlyPlaces(
  writable: readonly string[],
  explicit: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): string[] {
  const inside = [
    ...writable.flatMap((dir) => PROTECTED_NAMES.map((name) => join(dir, name))),
    ...ownFiles(env, writable).filter((p) => writable.some((dir) => within(p, dir))),
  ];
  const out = new Set<string>();
  for (const candidate of inside) {
    const found = existing(candidate);
    if (!found || !writable.some((dir) => within(found.path, dir))) continue;
    if (explicit.some((root) => within(root, found.path))) continue;
    out.add(found.path);
  }
  return [...out];
}
