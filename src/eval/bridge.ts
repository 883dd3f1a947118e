/**
 * The host side of agent() and completion(): each call runs the configured command with the
 * request as JSON on stdin and takes its stdout as the answer. Agent runs are stored as
 * transcripts that an `agent://<id>` handle names.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BridgeHandler } from './kernel.js';
import { artifactDir } from './outputSink.js';

export interface BridgeCommands {
  agent?: string;
  completion?: string;
}

const HANDLE_PREFIX = 'agent://';

/** The transcript file an `agent://<id>` handle names. */
export function resolveAgentHandle(uri: string): string {
  const id = uri.startsWith(HANDLE_PREFIX) ? uri.slice(HANDLE_PREFIX.length) : uri;
  if (!/^[\w-]+$/.test(id)) throw new Error(`not an agent handle: ${uri}`);
  return join(artifactDir(), `agent-${id}.json`);
}

/** Runs `command` in a shell with `input` on stdin; resolves with its stdout. */
function runCommand(command: string, input: string, signal: AbortSignal): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('/bin/sh', ['-c', command], { stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      err = (err + d).slice(-4000);
    });
    const onAbort = () => {
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // gone already
      }
      reject(new Error('cancelled: the cell was interrupted'));
    };
    signal.addEventListener('abort', onAbort, { once: true });
    child.on('error', (e) => reject(new Error(`cannot run ${command}: ${e.message}`)));
    child.on('close', (code) => {
      signal.removeEventListener('abort', onAbort);
      if (code === 0) resolve(out);
      else reject(new Error(`${command} exited with code ${code}${err.trim() ? `: ${err.trim()}` : ''}`));
    });
    child.stdin.on('error', () => {});
    child.stdin.end(input);
  });
}

export function commandBridge(commands: BridgeCommands): BridgeHandler {
  return async ({ kind, payload }, signal) => {
    const command =
      kind === 'agent' ? commands.agent : kind === 'completion' ? commands.completion : undefined;
    if (!command) {
      const flag = kind === 'agent' ? '--agent-command' : '--completion-command';
      throw new Error(
        `${kind}() needs a command to run it: start omp-eval with ${flag} CMD (or set bridge.${kind}Command in the config file); CMD receives the request as JSON on stdin and answers on stdout`,
      );
    }
    const output = (await runCommand(command, JSON.stringify({ kind, ...payload }), signal)).replace(
      /\n$/,
      '',
    );
    if (kind !== 'agent') return { output };
    const id = randomUUID();
    writeFileSync(resolveAgentHandle(id), JSON.stringify({ id, request: payload, output }, null, 2), {
      mode: 0o600,
    });
    return { output, id, handle: `${HANDLE_PREFIX}${id}` };
  };
}
