/**
 * The agents' calls a served notebook shows: each connected agent's session feed (the events
 * `omp-eval attach` gets over its socket, here in process) goes to one FollowedSession, the attach
 * direction's, which queues the calls' cells in the notebook and replays their events. Calls are
 * numbered in one sequence for the notebook (each feed counts its own from 1).
 */
import type { CellResult } from '../../eval/index.js';
import type { AgentCell, CellRun } from '../../tui/backend.js';
import { FollowedSession } from '../share/attachBackend.js';
import type { FeedListener } from '../share/feed.js';
import type { ServerMessage } from '../share/protocol.js';

/** An agent's session as the notebook needs it (a KernelSession over the notebook's kernels). */
export interface AgentSession {
  readonly feed: { subscribe(listener: FeedListener, historyCalls?: number): () => void };
  /** Interrupts the running cell for the person; false when none runs. */
  interruptForPerson(): boolean;
}

export class ServedCalls {
  private readonly followed = new FollowedSession();
  private next = 0;
  /** The agent of each call of the notebook's sequence, until the call ends. */
  private readonly owners = new Map<number, AgentSession>();
  /** The call whose cell the notebook replays now. */
  private replaying?: number;

  /** Shows `agent`'s calls from now on, until its session ends. */
  follow(agent: AgentSession): void {
    /** The feed's numbers of its calls and the notebook's. */
    const numbers = new Map<number, number>();
    const unsubscribe = agent.feed.subscribe((message) => {
      if (message.t === 'ended') {
        // (its connection ended: a cell still waiting for its end is cancelled, with the reason)
        this.followed.endCells(message.reason, new Set(numbers.values()));
        for (const n of numbers.values()) this.owners.delete(n);
        numbers.clear();
        unsubscribe();
        return;
      }
      if (message.t === 'notice') {
        this.followed.onMessage(message);
        return;
      }
      if (message.t === 'call') {
        const n = ++this.next;
        numbers.set(message.call, n);
        this.owners.set(n, agent);
        this.followed.onMessage({ ...message, call: n });
        return;
      }
      if (message.t !== 'output' && message.t !== 'cell' && message.t !== 'callEnd') return;
      const n = numbers.get(message.call);
      if (n === undefined) return;
      this.followed.onMessage({ ...message, call: n } as ServerMessage);
      if (message.t === 'callEnd') {
        numbers.delete(message.call);
        this.owners.delete(n);
      }
    }, 0);
  }

  /** Calls `listener` with what the agents' sessions tell the person between cells (a restart). */
  onNotice(listener: (text: string) => void): void {
    this.followed.noticeListeners.add(listener);
  }

  /** Calls `listener` with each call's cells as it starts (those that came before first). */
  onAgentCells(listener: (cells: AgentCell[]) => void): () => void {
    this.followed.agentListener = listener;
    for (const batch of this.followed.waitingCalls.splice(0)) listener(batch);
    return () => {
      if (this.followed.agentListener === listener) this.followed.agentListener = undefined;
    };
  }

  /** Replays an agent's cell in the notebook: its events so far, then as they come, to its end. */
  async replay(run: CellRun & { party: NonNullable<CellRun['party']> }): Promise<CellResult> {
    this.replaying = run.party.call;
    try {
      return await this.followed.replay(run);
    } finally {
      this.replaying = undefined;
    }
  }

  /** Ctrl-C on an agent's cell: its session interrupts it for the person; false when none runs. */
  interrupt(): boolean {
    const owner = this.replaying === undefined ? undefined : this.owners.get(this.replaying);
    return owner?.interruptForPerson() ?? false;
  }

  /** Serving stopped: cells still waiting for their end are cancelled, saying `why`. */
  endAll(why: string): void {
    this.followed.endCells(why);
  }
}
