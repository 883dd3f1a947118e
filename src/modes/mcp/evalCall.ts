/**
 * One eval call in its session, once its kernels fit: the cells run with progress (the request's
 * notifications, or a task's status), input() through the client's elicitation where it offers
 * it, and the result shaped for the revision, with what the session has to say first.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ClientAsker } from './clientAsk.js';
import type { CallExtra } from './connection.js';
import { askForInput, offersFormElicitation } from './elicitation.js';
import type { EvalToolParams } from './engine.js';
import type { KernelSession } from './kernelSession.js';
import { ProgressReporter, progressOfRequest } from './progress.js';
import { evalCallResult } from './results.js';

export interface EvalCallContext {
  /** The revision the connection speaks. */
  version: string | undefined;
  env: NodeJS.ProcessEnv;
  /** How the call asks its client. */
  asker: ClientAsker;
  /** The longest silence between progress notifications. */
  keepaliveMs?: number;
  /** A call made as a task: its progress is the task's status message. */
  task?: { id: string; tell: (message: string) => Promise<void> };
}

/** Runs the call's cells; resolves with its result and the artifact files it named. */
export async function runEvalCall(
  session: KernelSession,
  params: EvalToolParams,
  extra: CallExtra,
  notes: string[],
  ctx: EvalCallContext,
): Promise<{ result: CallToolResult; artifacts: string[] }> {
  const { task, asker } = ctx;
  // A task's progress is its status message (its request was answered with the task).
  const progress = task
    ? new ProgressReporter(task.id, params.cells.length, (p) => task.tell(p.message), ctx.keepaliveMs)
    : progressOfRequest(extra, params.cells.length, ctx.version, ctx.keepaliveMs);
  session.asker = asker;
  try {
    const result = await session.runCells(params, {
      signal: extra.signal,
      env: ctx.env,
      // (a task's cells get no form: nothing waits on its request any more)
      ...(!task && offersFormElicitation(asker.capabilities)
        ? {
            onInput: async (i, prompt, password, ended) => {
              const signal = AbortSignal.any([extra.signal, ended]);
              const answer = await askForInput(asker, { prompt, password, cell: i + 1, signal });
              if (answer.note) notes.push(answer.note);
              return answer.value;
            },
          }
        : {}),
      ...(progress ? { onEvent: (i, event) => progress.onEvent(i, event) } : {}),
    });
    await progress?.finish();
    // The client no longer waits for this result: the next call says what happened.
    const cancelled = extra.signal.aborted;
    if (cancelled) session.noteCancelledCall(result.cells);
    else session.delivered(result.cells);
    const notices = cancelled ? [] : [...session.takeNotices(), ...notes];
    return await evalCallResult(result, session.name, notices, {
      version: ctx.version,
      artifactDir: session.executor.artifactDir,
    });
  } finally {
    session.asker = undefined;
    await progress?.finish();
  }
}
