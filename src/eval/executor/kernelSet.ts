/**
 * The kernels of one session key (session id + real cwd + interpreter): one per language, each
 * started at its language's first cell, shared by every owner of the key. Runs on the key queue
 * on `lock`. Kernel states and between-cell output are published to subscribers; between-cell
 * output nobody subscribed to is kept for the next result.
 */
import type { KernelHandle as Kernel } from '../kernel/handle.js';
import type { KernelState } from '../kernel/state.js';
import type { Language } from '../language.js';
import type { ResolvedPython } from '../launch/python.js';
import { renderBundle, statusEvent, statusLine } from '../output/display.js';
import { OutputSink } from '../output/outputSink.js';
import type { Frame, ScriptInfo } from '../protocol/index.js';

export const LANGUAGES: readonly Language[] = ['py', 'js'];

/** A kernel's state, or `none` when the language has no kernel (not started yet, or shut down). */
export type KernelStatus = KernelState | 'none';

export type KernelStateListener = (language: Language, state: KernelStatus) => void;

export class KernelSet {
  owners = 0;
  /** Notices for the next cell's result (the session's interpreter was kept: registry.ts). */
  readonly pendingNotices: string[] = [];
  /** Tail of the queue of runs on this key. */
  lock: Promise<void> = Promise.resolve();
  /** Kernels being started, one per language: a second caller waits for the first one's start. */
  readonly starting = new Map<Language, Promise<Kernel>>();
  private readonly kernels: Partial<Record<Language, { kernel: Kernel; unsubscribe: () => void }>> = {};
  private readonly background = new Set<(frame: Frame) => void>();
  private readonly stateListeners = new Set<KernelStateListener>();
  /** Background output nobody listened to, for the next result. */
  private kept?: OutputSink;

  constructor(
    readonly key: string,
    readonly cwd: string,
    /** Unset when no Python was found (the session was opened with requirePython: false). */
    readonly python: ResolvedPython | undefined,
    readonly pythonError: Error | undefined,
    /** The script the session's cells come from (`omp-eval run`), for its kernels' init. */
    readonly script?: ScriptInfo,
  ) {}

  get(language: Language): Kernel | undefined {
    return this.kernels[language]?.kernel;
  }

  all(): Kernel[] {
    return LANGUAGES.flatMap((language) => this.kernels[language]?.kernel ?? []);
  }

  /** Makes `kernel` the set's kernel of `language`, publishing its states and background output. */
  add(language: Language, kernel: Kernel): void {
    this.remove(language);
    const offState = kernel.onState((state) => this.publish(language, state));
    const offBackground = kernel.onBackground((frame) => {
      if (this.background.size === 0) this.keepBackground(frame);
      for (const listener of this.background) listener(frame);
    });
    this.kernels[language] = {
      kernel,
      unsubscribe: () => {
        offState();
        offBackground();
      },
    };
    this.publish(language, kernel.state);
  }

  /** Takes the kernel of `language` out of the set (the caller shuts it down). */
  remove(language: Language): Kernel | undefined {
    const entry = this.kernels[language];
    if (!entry) return undefined;
    entry.unsubscribe();
    delete this.kernels[language];
    this.publish(language, 'none');
    return entry.kernel;
  }

  /** Shuts down every kernel (or the one of `only`). */
  async shutdown(only?: Language): Promise<void> {
    // A kernel still starting joins the set first, so that it is shut down with the rest.
    const starting = [...this.starting].filter(([l]) => !only || l === only);
    await Promise.all(starting.map(([, start]) => start.catch(() => undefined)));
    const kernels = LANGUAGES.filter((l) => !only || l === only).flatMap((l) => this.remove(l) ?? []);
    await Promise.all(kernels.map((k) => k.shutdown()));
  }

  onBackground(listener: (frame: Frame) => void): () => void {
    this.background.add(listener);
    return () => {
      this.background.delete(listener);
    };
  }

  onKernelState(listener: KernelStateListener): () => void {
    this.stateListeners.add(listener);
    return () => {
      this.stateListeners.delete(listener);
    };
  }

  /** Background output kept while nobody listens (an embedded session), as text; taken once. */
  takeBackground(): string | undefined {
    const sink = this.kept;
    this.kept = undefined;
    if (!sink) return undefined;
    sink.end();
    return sink.text || undefined;
  }

  private keepBackground(frame: Frame) {
    let text: string | undefined;
    if (frame.type === 'stdout' || frame.type === 'stderr') text = frame.data;
    else if (frame.type === 'error') text = `${frame.traceback.join('\n')}\n`;
    else if (frame.type === 'display' || frame.type === 'result') {
      const status = statusEvent(frame.bundle);
      text = status ? statusLine(status) : renderBundle(frame.bundle).text;
      if (text !== undefined && !text.endsWith('\n')) text += '\n';
    }
    if (!text) return;
    this.kept ??= new OutputSink();
    this.kept.push(text);
  }

  private publish(language: Language, state: KernelStatus) {
    for (const listener of [...this.stateListeners]) listener(language, state);
  }
}
