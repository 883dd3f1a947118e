/**
 * A cell's error that the sandbox caused says so: a refused connection or an unknown host with
 * the network off, a write to a read-only place, an allocation over the memory limit. The hint
 * goes at the end of the error's value and of its traceback, where people and agents read.
 */
import type { ErrorFrame } from '../protocol/index.js';
import { memoryLimitOf, type SandboxSettings } from './settings.js';

const NETWORK_ERRORS =
  /Connection refused|Network is unreachable|No route to host|Temporary failure in name resolution|Name or service not known|No address associated|Cannot assign requested address|ECONNREFUSED|ENETUNREACH|EHOSTUNREACH|EAI_AGAIN|ENOTFOUND|EADDRNOTAVAIL/;
const READ_ONLY_ERRORS = /Read-only file system|EROFS/;
const REFUSED = /Permission denied|EACCES/;
const SOCKET_CONTEXT = /socket|connect|AF_UNIX|\.sock\b/i;
const MEMORY_ERRORS = /MemoryError|Cannot allocate memory|ENOMEM|out of memory/i;

export interface HintPlaces {
  cwd: string;
  tmp: string;
  roots: readonly string[];
}

/** The hint for an error the sandbox explains, if any. */
function sandboxHint(text: string, s: SandboxSettings, places: HintPlaces): string | undefined {
  if (s.mode !== 'off' && !s.allowNetwork && NETWORK_ERRORS.test(text)) {
    return `omp-eval: the network is off in this sandbox (${s.mode}): the kernel has only a loopback of its own. Run with --allow-network to open it.`;
  }
  if (s.mode !== 'off' && REFUSED.test(text) && SOCKET_CONTEXT.test(text)) {
    return `omp-eval: this sandbox (${s.mode}) refuses Unix sockets and other non-IP sockets, wherever the socket file is (the host's tmux, D-Bus, ssh-agent, docker); socketpair() and TCP/UDP ${s.allowNetwork ? 'work' : 'on the sandbox’s own loopback work'}. Only the user can run without the sandbox (--sandbox off).`;
  }
  if (s.mode !== 'off' && READ_ONLY_ERRORS.test(text)) {
    const writable = [
      ...(s.mode === 'workspace-write' ? [`the working directory (${places.cwd})`] : []),
      `$TMPDIR (${places.tmp})`,
      ...places.roots,
    ];
    return `omp-eval: the sandbox (${s.mode}) lets cells write only in ${writable.join(', ')}. Run with --add-writable-root DIR to open a directory, or --sandbox off.`;
  }
  const limit = memoryLimitOf(s);
  if (limit && MEMORY_ERRORS.test(text)) {
    return `omp-eval: the kernel and its processes may use ${limit} MB (--memory-limit).`;
  }
  return undefined;
}

/** The frame with the sandbox's hint added, or the frame itself when there is none. */
export function annotateError(frame: ErrorFrame, s: SandboxSettings, places: HintPlaces): ErrorFrame {
  const text = `${frame.ename}: ${frame.evalue}\n${frame.traceback.slice(-3).join('\n')}`;
  const hint = sandboxHint(text, s, places);
  if (!hint) return frame;
  return {
    ...frame,
    evalue: frame.evalue ? `${frame.evalue}\n${hint}` : hint,
    traceback: [...frame.traceback, hint],
  };
}
