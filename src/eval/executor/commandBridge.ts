/**
 * The host side of agent() and completion(): each call runs the configured command (through
 * execa: cancellation, the whole process tree killed, a bounded buffer) with the request as JSON
 * on stdin and takes its stdout as the answer. Agent runs are stored as transcripts that an
 * `agent://<id>` handle names.
 */
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { artifactDir } from '../output/outputSink.js';
import { gated, openGate, readyHostGuard } from '../process/hostGuard.js';
import { bootTicks, signalGroup } from '../process/processGroup.js';
import type { BridgeHandler } from '../protocol/index.js';
import { bridgePayloadProblem } from '../schemas/index.js';

export interface BridgeCommands {
  agent?: string;
  completion?: string;
  /** Where agent() transcripts go (the executor's folder of artifacts); default: the folder itself. */
  artifactDir?: () => string;
}

const HANDLE_PREFIX = 'agent://';
/** The most a command may print as its answer. */
const MAX_ANSWER_CHARS = 16 * 1024 * 1024;
const CANCELLED = 'cancelled: the cell was interrupted';

/** The transcript file an `agent://<id>` handle names. */
export function resolveAgentHandle(uri: string, folder?: string): string {
  const id = uri.startsWith(HANDLE_PREFIX) ? uri.slice(HANDLE_PREFIX.length) : uri;
  if (!/^[\w-]+$/.test(id)) throw new Error(`not an agent handle: ${uri}`);
  const name = `agent-${id}.json`;
  return folder ? join(folder, name) : (transcripts.get(name) ?? join(artifactDir(), name));
}

/** Where this process wrote each transcript (in its executor's folder), by file name. */
const transcripts = new Map<string, string>();
const TRANSCRIPTS_KEPT = 10_000;

function remember(path: string): void {
  transcripts.set(basename(path), path);
  if (transcripts.size > TRANSCRIPTS_KEPT) transcripts.delete(transcripts.keys().next().value as string);
}

/** Runs `command` in a shell (its own process group) with `input` on stdin; resolves with its stdout. */
async function runCommand(command: string, input: string, signal: AbortSignal): Promise<string> {
  const { execa } = await import('execa');
  if (signal.aborted) throw new Error(CANCELLED);
  readyHostGuard();
  const { file, args } = gated('/bin/sh', ['-c', command]);
  const child = execa(file, args, {
    detached: true, // a group of its own: an interrupt kills everything the command started
    reject: false,
    stripFinalNewline: false,
    maxBuffer: MAX_ANSWER_CHARS,
    cancelSignal: signal,
    killSignal: 'SIGKILL',
  });
  // The command and what it starts die with the host, as kernels do: it starts once guarded.
  const guarded = openGate(child.pid, child.stdin, input);
  // Once the command ended and was reaped, its group id may be another program's: what is left
  // of its group is told apart by when it started.
  let endedAt: number | undefined;
  child.once('exit', () => {
    endedAt = bootTicks();
  });
  const killTree = () => {
    if (child.pid) signalGroup(child.pid, 'SIGKILL', endedAt);
  };
  signal.addEventListener('abort', killTree, { once: true });
  try {
    const result = await child;
    if (result.isCanceled || signal.aborted) throw new Error(CANCELLED);
    if (result.isMaxBuffer) throw new Error(`${command} printed more than ${MAX_ANSWER_CHARS} characters`);
    if (result.exitCode !== 0) {
      const err = String(result.stderr ?? '')
        .trim()
        .slice(-4000);
      const how =
        result.exitCode === undefined
          ? `failed: ${result.shortMessage}`
          : `exited with code ${result.exitCode}`;
      throw new Error(`${command} ${how}${err ? `: ${err}` : ''}`);
    }
    return String(result.stdout ?? '');
  } finally {
    signal.removeEventListener('abort', killTree);
    killTree(); // what the command left running in its group or session ends with it
    guarded?.release();
  }
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
    const problem = bridgePayloadProblem(kind, payload);
    if (problem) throw new Error(problem);
    const output = (await runCommand(command, JSON.stringify({ kind, ...payload }), signal)).replace(
      /\n$/,
      '',
    );
    if (kind !== 'agent') return { output };
    const id = randomUUID();
    const path = resolveAgentHandle(id, commands.artifactDir?.() ?? artifactDir());
    writeFileSync(path, JSON.stringify({ id, request: payload, output }, null, 2), { mode: 0o600 });
    remember(path);
    return { output, id, handle: `${HANDLE_PREFIX}${id}` };
  };
}
