/**
 * Long eval calls as MCP Tasks (revision 2025-11-25). A `tools/call` that carries a `task` field is
 * answered at once with a task while its cells run; the client asks `tasks/get` for the status,
 * `tasks/result` for the result (which waits for it) and `tasks/cancel` to stop it, which
 * interrupts the cell as a cancelled call does (SIGINT, then a fresh kernel if the code does not
 * stop; the next call says what happened). The SDK's Protocol answers those requests from the
 * store; this store also tells the running call when its task is cancelled.
 *
 * What a task's call does not have: progress notifications (the request they would be about was
 * answered with the task: the status message says which cell runs instead) and input() through
 * elicitation (nothing waits on the request any more; a cell's input() gets today's error with
 * its advice).
 */
import { InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js';
import {
  type CallToolResult,
  type CreateTaskResult,
  ErrorCode,
  McpError,
  type RequestId,
  type Result,
  type Task,
} from '@modelcontextprotocol/sdk/types.js';
import { errorResult } from './results.js';
import { type CallToolRequest, type Extra, resultFor } from './versionedServer.js';
import { supports } from './versions.js';

/** How long a finished task's result is kept when the client asks for no time (1 hour). */
export const DEFAULT_TASK_TTL_MS = 60 * 60 * 1000;
/** The longest a client may have a result kept (a day): results hold a whole cell's output. */
export const MAX_TASK_TTL_MS = 24 * 60 * 60 * 1000;
/** How often a client is told to poll, in milliseconds. */
const POLL_INTERVAL_MS = 500;

/**
 * The shortest time a task is kept (a minute). The time counts from the task's creation, so a
 * shorter one would let a task vanish while its cells still run, its result with it.
 */
export const MIN_TASK_TTL_MS = 60 * 1000;

/** The time a task is kept for: the client's ask within [a minute, a day], an hour when it asks none. */
export function taskTtl(asked: number | null | undefined): number {
  if (asked === undefined || asked === null || !Number.isFinite(asked) || asked <= 0)
    return DEFAULT_TASK_TTL_MS;
  return Math.min(Math.max(Math.round(asked), MIN_TASK_TTL_MS), MAX_TASK_TTL_MS);
}

/** The task store of one connection, which knows the running calls to stop on a cancel. */
export class EvalTaskStore extends InMemoryTaskStore {
  private readonly running = new Map<string, AbortController>();

  /** A task for a call just taken, with the signal that its cancellation aborts. */
  async open(
    ttl: number | null | undefined,
    requestId: RequestId,
    request: { method: string; params?: Record<string, unknown> },
    sessionId?: string,
  ): Promise<{ task: Task; signal: AbortSignal }> {
    const task = await this.createTask(
      { ttl: taskTtl(ttl), pollInterval: POLL_INTERVAL_MS },
      requestId,
      request as Parameters<InMemoryTaskStore['createTask']>[2],
      sessionId,
    );
    const controller = new AbortController();
    this.running.set(task.taskId, controller);
    return { task, signal: controller.signal };
  }

  /**
   * An eval call made as a task: answered at once with the task while `run` runs its cells; the
   * result goes to the store for tasks/result. restart and variables are quick and stay plain calls.
   */
  async start(
    request: CallToolRequest,
    extra: Extra,
    version: string | undefined,
    run: (extra: Extra, taskId: string) => Promise<CallToolResult>,
  ): Promise<CreateTaskResult> {
    const { name, task: asked } = request.params;
    if (name !== 'eval')
      throw new McpError(
        ErrorCode.MethodNotFound,
        `Only eval runs as a task; call ${name} without the "task" field`,
      );
    if (!supports(version, 'tasks'))
      throw new McpError(
        ErrorCode.InvalidRequest,
        `Tasks are not part of MCP ${version}, the revision this connection negotiated; call eval without the "task" field`,
      );
    const session = extra.sessionId;
    const { task, signal } = await this.open(asked?.ttl, extra.requestId, request, session);
    const id = task.taskId;
    void run({ ...extra, signal, _meta: {} }, id)
      .then(
        (result) =>
          this.finish(id, result.isError ? 'failed' : 'completed', resultFor(result, version), session),
        (err: Error) => this.finish(id, 'failed', errorResult(err.message), session),
      )
      .catch(() => {}); // (the task was forgotten meanwhile: the connection ended)
    return { task };
  }

  override async updateTaskStatus(
    taskId: string,
    status: Task['status'],
    statusMessage?: string,
    sessionId?: string,
  ): Promise<void> {
    await super.updateTaskStatus(taskId, status, statusMessage, sessionId);
    if (status === 'cancelled') this.running.get(taskId)?.abort();
  }

  /** What a task's call did: its result kept for tasks/result, unless it was cancelled meanwhile. */
  async finish(taskId: string, status: 'completed' | 'failed', result: Result, sessionId?: string) {
    this.running.delete(taskId);
    const task = await this.getTask(taskId, sessionId);
    if (!task || task.status === 'cancelled') return; // (its result was not wanted)
    await this.storeTaskResult(taskId, status, result, sessionId);
  }

  /** A running task's status message (which cell runs), ignored once the task ended. */
  async tell(taskId: string, message: string, sessionId?: string): Promise<void> {
    const task = await this.getTask(taskId, sessionId);
    if (task?.status === 'working') await this.updateTaskStatus(taskId, 'working', message, sessionId);
  }

  /** Stops every running task's call and forgets all tasks (the connection ends). */
  close(): void {
    for (const controller of this.running.values()) controller.abort();
    this.running.clear();
    this.cleanup();
  }
}
