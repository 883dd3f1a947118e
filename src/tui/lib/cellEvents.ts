/**
 * One cell's events into its bounded output, in order: text at once, markdown and images once
 * rendered (asynchronously, loading their libraries on first use), bundles kept for saving.
 */
import type { OutputEvent } from '../../eval/index.js';
import { OutputBuffer, type RichOutput, type Spill, type Stream } from '../state/output.js';
import { type ImageMode, placeholder } from './images.js';
import { notebookNotice, withoutEchoWarning } from './messages.js';

/** Images get at most this many rows (two pixels each) of the terminal. */
export const IMAGE_ROWS = 16;

type Step = () => void;

/** A step of the queue: ready to apply, or waiting for a render. */
interface Pending {
  step?: Step;
  rendered?: Promise<void>;
}

export interface EventContext {
  imageMode: ImageMode;
  color: boolean;
  columns: () => number;
  /** The kernel is being restarted on purpose: its shutdown notice is not news. */
  restarting: () => boolean;
  onInput: (prompt: { prompt: string; password: boolean }) => void;
  onCd: (path: string) => void;
}

function statusText(event: { op: string; [key: string]: unknown }): string {
  const fields = Object.entries(event)
    .filter(([k]) => k !== 'op')
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`);
  return [event.op, ...fields].join(' ');
}

type RichEvent = Extract<OutputEvent, { kind: 'display' | 'result' }>;

/** The MIME bundle of a display or result: as sent when the engine passes it, else rebuilt. */
export function bundleOf(event: RichEvent): Record<string, unknown> {
  const sent = (event as { bundle?: unknown }).bundle;
  if (sent && typeof sent === 'object') return sent as Record<string, unknown>;
  const bundle: Record<string, unknown> = {};
  if (event.markdown !== undefined) bundle['text/markdown'] = event.markdown;
  else if (event.text !== undefined) bundle['text/plain'] = event.text;
  for (const image of event.images) bundle[image.mime] = image.data;
  if (event.json !== undefined) bundle['application/json'] = event.json;
  if (!('text/plain' in bundle) && event.images.length && event.text !== undefined)
    bundle['text/plain'] = event.text;
  return bundle;
}

let markdownModule: Promise<typeof import('../../render/markdown.js')> | undefined;
let imageModule: Promise<typeof import('./imageBlocks.js')> | undefined;

/** Feeds a running cell's events to its output, keeping their order across async renders. */
export class CellEvents {
  readonly buffer: OutputBuffer;
  private queue: Pending[] = [];

  constructor(
    private readonly ctx: EventContext,
    openSpill: () => Spill,
  ) {
    this.buffer = new OutputBuffer(openSpill);
  }

  private add(step: Step | Promise<Step>) {
    if (typeof step === 'function') {
      // Text goes straight in when nothing waits before it: nothing piles up in memory.
      if (!this.queue.length) step();
      else this.queue.push({ step });
      return;
    }
    const pending: Pending = {};
    pending.rendered = step.then((s) => {
      pending.step = s;
    });
    this.queue.push(pending);
  }

  /** Applies the steps that are ready, in order (all of them, waiting for renders, when `wait`). */
  async drain(wait: boolean): Promise<void> {
    while (this.queue.length) {
      const head = this.queue[0] as Pending;
      if (!head.step) {
        if (!wait) return;
        await head.rendered;
      }
      head.step?.();
      this.queue.shift();
    }
  }

  private text(stream: Stream, text: string, rich?: number) {
    this.add(() => this.buffer.appendText(stream, text, rich));
  }

  onEvent(event: OutputEvent): void {
    switch (event.kind) {
      case 'stdout':
        this.text('stdout', event.text);
        break;
      case 'stderr': {
        const text = withoutEchoWarning(event.text);
        if (text) this.text('stderr', text);
        break;
      }
      case 'result':
      case 'display':
        this.onRich(event);
        break;
      case 'error':
        this.text('error', `${event.traceback.join('\n')}\n`);
        break;
      case 'status':
        this.text('status', `${statusText(event.event)}\n`);
        if (event.event.op === 'cd' && typeof event.event.path === 'string') this.ctx.onCd(event.event.path);
        break;
      case 'notice': {
        const text = notebookNotice(event.text, { restarting: this.ctx.restarting() });
        if (text) this.text('notice', `${text}\n`);
        break;
      }
      case 'input_request':
        this.add(() => this.ctx.onInput({ prompt: event.prompt, password: event.password }));
        break;
      default:
        break;
    }
  }

  private onRich(event: RichEvent) {
    const rich: RichOutput = { kind: event.kind, bundle: bundleOf(event) };
    const stream: Stream = event.kind === 'result' ? 'result' : 'display';
    let index: number | undefined;
    this.add(() => {
      index = this.buffer.addRich(rich);
    });
    const width = Math.max(20, this.ctx.columns() - 2);
    if (event.markdown !== undefined) {
      const source = event.markdown;
      markdownModule ??= import('../../render/markdown.js');
      this.add(
        markdownModule.then(
          ({ renderMarkdown }) =>
            () =>
              this.buffer.appendText(stream, withNewline(renderMarkdown(source, width)), index),
          () => () => this.buffer.appendText(stream, withNewline(source), index),
        ),
      );
    } else {
      const body =
        (this.ctx.color ? event.ansi : undefined) ??
        event.text ??
        (event.json !== undefined ? JSON.stringify(event.json, null, 2) : undefined);
      // Beside an image, a default repr (<Figure size 640x480 ...>) says nothing more.
      const reprOnly = event.images.length > 0 && body !== undefined && /^<[^\n]*>\s*$/.test(body);
      if (body !== undefined && !reprOnly)
        this.add(() => this.buffer.appendText(stream, withNewline(body), index));
    }
    for (const image of event.images) {
      if (this.ctx.imageMode === 'kitty' || this.ctx.imageMode === 'iterm') {
        // Drawn through the terminal's own protocol once the cell is printed.
        this.add(() => this.buffer.appendImage(image, undefined, index));
      } else if (this.ctx.imageMode === 'blocks') {
        imageModule ??= import('./imageBlocks.js');
        const columns = Math.max(10, this.ctx.columns() - 4);
        this.add(
          imageModule
            .then(({ renderBlocks }) => renderBlocks(image, columns, IMAGE_ROWS))
            .then(
              (ansi) => () => this.buffer.appendImage(image, ansi, index),
              () => () => this.buffer.appendImage(image, undefined, index),
            ),
        );
      } else this.add(() => this.buffer.appendText('display', `${placeholder(image)}\n`, index));
    }
  }
}

const withNewline = (text: string) => (text.endsWith('\n') ? text : `${text}\n`);
