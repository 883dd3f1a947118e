/**
 * The host guard: one small `/bin/sh` process per host that kills what the host started (kernels,
 * interpreter probes, agent and completion commands) once the host is gone, even when the host was
 * SIGKILLed while a kernel spins in C code holding the GIL (no thread of the kernel could act).
 *
 * It costs nothing while the host lives: it blocks reading a pipe whose write end only the host
 * holds (close-on-exec, so no child inherits it). The host writes `+ID` when it starts guarding a
 * process group and `-ID` when that group has ended; end of file means the host is gone. Then the
 * guard kills each group, and on Linux every live process in those groups or sessions or descended
 * from them (one /proc scan, with shell builtins only: no `pkill`, no `ps`, no PATH needed), and
 * says on the host's stderr which process it could not stop. It watches groups from outside, so a
 * kernel wrapped in another program (bwrap) is guarded as its wrapper's group and descendants.
 *
 * The guard runs with an empty environment (no secrets of the host) in a session of its own (a
 * terminal's SIGHUP or Ctrl-C does not reach it).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import type { Writable } from 'node:stream';

/** The guard's program: POSIX sh, builtins only (read, kill, set, case, echo, test). */
export const GUARD_SCRIPT = `
ids=' '
while read -r line; do
  id=\${line#?}
  case $line in
    +*) ids="$ids$id " ;;
    -*) case $ids in *" $id "*) ids="\${ids%% $id *} \${ids#* $id }" ;; esac ;;
  esac
done
set -- $ids
[ $# -eq 0 ] && exit 0
[ -d /proc/self ] || {
  for id in $ids; do
    if kill -0 -$id 2>/dev/null; then kill -KILL -$id || echo "omp-eval: the host is gone, but process group $id could not be stopped" >&2; fi
  done
  exit 0
}
for id in $ids; do kill -STOP -$id 2>/dev/null; done
all=' '
round=0
while [ $round -lt 20 ]; do
  round=$((round + 1))
  rows=''
  for f in /proc/[0-9]*/stat; do
    { read -r s < "$f"; } 2>/dev/null || continue
    p=\${f#/proc/}; p=\${p%/stat}
    set -- \${s##*) }
    [ "$1" = Z ] || rows="$rows $p:$2:$3:$4"
  done
  marked="$ids$all"
  found=' '
  changed=1
  while [ $changed = 1 ]; do
    changed=0
    for row in $rows; do
      p=\${row%%:*}; rest=\${row#*:}; pp=\${rest%%:*}; rest=\${rest#*:}; pg=\${rest%%:*}; sid=\${rest#*:}
      case "$all$found" in *" $p "*) continue ;; esac
      case $marked in *" $p "*|*" $pp "*|*" $pg "*|*" $sid "*) marked="$marked$p "; found="$found$p "; changed=1 ;; esac
    done
  done
  [ "$found" = ' ' ] && break
  for p in $found; do kill -STOP $p 2>/dev/null; done
  all="$all\${found# }"
done
for id in $ids; do kill -KILL -$id 2>/dev/null; done
for p in $all; do
  if [ -d /proc/$p ]; then kill -KILL $p || echo "omp-eval: the host is gone, but process $p could not be stopped" >&2; fi
done
`;

interface Guard {
  child: ChildProcess;
  input: Writable;
  startedAt: number;
}

let guard: Guard | undefined;
/** The groups guarded now (re-sent to a guard started anew). */
const guarded = new Set<number>();

function send(line: string): void {
  const input = ensureGuard()?.input;
  if (input && !input.destroyed && input.writable) input.write(`${line}\n`);
}

function ensureGuard(): Guard | undefined {
  if (guard) return guard;
  if (process.platform === 'win32') return undefined;
  let child: ChildProcess;
  try {
    child = spawn('/bin/sh', ['-c', GUARD_SCRIPT], {
      detached: true, // a session of its own: no terminal signal reaches it
      stdio: ['pipe', 'ignore', 'inherit'], // it says on the host's stderr what it could not stop
      env: {}, // none of the host's secrets
    });
  } catch {
    return undefined; // no /bin/sh: the exit hook still covers normal exits
  }
  const input = child.stdin as Writable & { unref?: () => void };
  const current: Guard = { child, input, startedAt: Date.now() };
  guard = current;
  input.on('error', () => {}); // EPIPE: the guard died; noticed at 'exit'
  child.on('error', () => {});
  child.once('exit', () => {
    if (guard !== current) return;
    guard = undefined;
    // Killed by someone else: start anew for what is still guarded (unless it dies at once).
    if (guarded.size && Date.now() - current.startedAt > 1_000) for (const id of guarded) send(`+${id}`);
  });
  // Neither the guard nor its pipe keeps the host's event loop alive.
  child.unref();
  input.unref?.();
  for (const id of guarded) input.write(`+${id}\n`);
  return current;
}

/**
 * Starts the guard ahead of a process it will guard: a host killed between that process's spawn
 * and the guard's own would leave the process unguarded. Cheap once the guard runs.
 */
export function readyHostGuard(): void {
  ensureGuard();
}

/** The gate's program: the first line of stdin must be `go`, the rest is the command's stdin. */
const GATE_SCRIPT =
  'IFS= read -r go && [ "$go" = go ] || { echo "omp-eval: not started: the host went away first" >&2; exit 125; }; exec "$@"';
/** What opens the gate (written first on the gated command's stdin). */
const GATE_OPEN = 'go\n';

/**
 * `file args` behind a gate: the command starts only once the host has told the guard about its
 * group and then says go on its stdin, so a host killed in between (a library such as execa does
 * much between the spawn and its return) leaves nothing running that the guard does not know
 * of. The host's death before go is end of file: the gate exits and the command never runs.
 * Open it with openGate(). (Not on Windows, which has no guard.)
 */
export function gated(file: string, args: string[]): { file: string; args: string[] } {
  if (process.platform === 'win32') return { file, args };
  return { file: '/bin/sh', args: ['-c', GATE_SCRIPT, 'omp-eval-gate', file, ...args] };
}

/** Guards the gated process's group, then lets it start, with `input` (if any) as its stdin. */
export function openGate(
  pid: number | undefined,
  stdin: Writable | null | undefined,
  input?: string,
): GuardedGroup | undefined {
  const guarded = guardGroup(pid);
  if (!stdin) return guarded;
  stdin.on('error', () => {}); // EPIPE: it died; its result says so
  const open = process.platform === 'win32' ? '' : GATE_OPEN;
  stdin.end(`${open}${input ?? ''}`);
  return guarded;
}

/** What guarding one process group gives back: release it once the group has ended. */
export interface GuardedGroup {
  readonly pgid: number;
  release(): void;
}

/** A guard start is put off to the next turn of the event loop (see guardGroup's `soon`). */
let startPending = false;

/**
 * Kills the process group `pgid` (its session, its descendants) when this host dies. The group's
 * leader must have been spawned `detached` (a group and session of its own). Release it once the
 * group ended, so a pid used again later is never killed.
 *
 * `soon`: the guard, when it does not run yet, starts on the next turn of the event loop instead
 * of now. For a kernel, which runs nothing of the user's before its requests come and exits at
 * the end of its requests: starting the guard (a fork of the host) no longer delays the first
 * request it is sent, and a host killed meanwhile leaves a kernel that ends by itself.
 */
export function guardGroup(
  pgid: number | undefined,
  opts: { soon?: boolean } = {},
): GuardedGroup | undefined {
  if (!pgid || pgid <= 1 || process.platform === 'win32') return undefined;
  guarded.add(pgid);
  if (guard) send(`+${pgid}`);
  else if (opts.soon) {
    if (!startPending) {
      startPending = true;
      setImmediate(() => {
        startPending = false;
        if (guarded.size) ensureGuard(); // (told every group guarded by then)
      });
    }
  } else ensureGuard(); // a guard started now is told every guarded group
  let released = false;
  return {
    pgid,
    release() {
      if (released) return;
      released = true;
      guarded.delete(pgid);
      if (guard) send(`-${pgid}`);
    },
  };
}

/** The guard's pid (tests), if one runs. */
export function hostGuardPid(): number | undefined {
  return guard?.child.pid;
}
