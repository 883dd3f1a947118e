/**
 * One cell's events into its bounded output, in order: text at once, markdown and images once
 * rendered (asynchronously, loading their libraries on first use), bundles and their metadata
 * kept for saving; clear_output() clears the output at its place in that order.
 */
import { type ImageOutput, type OutputEvent, shownStatusLine } from '../../eval/index.js';
import { type ImageMode, imageColumns, placeholder } from '../rendering/images.js';
import { OutputBuffer, type RichOutput, type Spill, type Stream } from '../state/output.js';
import { notebookNotice, withoutEchoWarning } from './messages.js';

/** Images get at most this many rows (two pixels each) of the terminal. */
const IMAGE_ROWS = 16;

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
  /** set_next_input() / %load: text for the next prompt. */
  onNextInput: (text: string) => void;
}

type RichEvent = Extract<OutputEvent, { kind: 'display' | 'result' }>;

let markdownModule: Promise<typeof import('../markdown/markdown.js')> | undefined;
let imageModule: Promise<typeof import('../rendering/imageBlocks.js')> | undefined;

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
        this.add(() => this.buffer.addError(event));
        if (event.traceback.length) this.text('error', `${event.traceback.join('\n')}\n`);
        break;
      case 'status': {
        const line = shownStatusLine(event.event);
        if (line !== undefined) this.text('status', `${line}\n`);
        if (event.event.op === 'cd' && typeof event.event.path === 'string') this.ctx.onCd(event.event.path);
        break;
      }
      case 'notice': {
        const text = notebookNotice(event.text, { restarting: this.ctx.restarting() });
        if (text) this.text('notice', `${text}\n`);
        break;
      }
      case 'input_request':
        this.add(() => this.ctx.onInput({ prompt: event.prompt, password: event.password }));
        break;
      case 'clear_output':
        this.add(() => this.buffer.clear());
        break;
      case 'set_next_input':
        this.ctx.onNextInput(event.text);
        break;
      default:
        break;
    }
  }

  private onRich(event: RichEvent) {
    const rich: RichOutput = {
      kind: event.kind,
      bundle: event.bundle,
      ...(event.metadata ? { metadata: event.metadata } : {}),
    };
    const stream: Stream = event.kind === 'result' ? 'result' : 'display';
    let index: number | undefined;
    this.add(() => {
      index = this.buffer.addRich(rich);
    });
    const width = Math.max(20, this.ctx.columns() - 2);
    if (event.markdown !== undefined) {
      const source = event.markdown;
      markdownModule ??= import('../markdown/markdown.js');
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
    for (const image of event.images) this.onImage(image, event.metadata, index);
  }

  /** An image, drawn at the size its display metadata asks for (within the terminal). */
  private onImage(image: ImageOutput, metadata: Record<string, unknown> | undefined, index?: number) {
    const mode = this.ctx.imageMode;
    const fit = imageColumns(image, metadata?.[image.mime], Math.max(10, this.ctx.columns() - 4), IMAGE_ROWS);
    if (mode === 'kitty' || mode === 'iterm') {
      // Drawn through the terminal's own protocol once the cell is printed.
      this.add(() => this.buffer.appendImage(image, undefined, index, fit.columns));
    } else if (mode === 'blocks') {
      imageModule ??= import('../rendering/imageBlocks.js');
      this.add(
        imageModule
          .then(({ renderBlocks }) => renderBlocks(image, fit.columns, fit.rows))
          .then(
            (ansi) => () => this.buffer.appendImage(image, ansi, index, fit.columns),
            () => () => this.buffer.appendImage(image, undefined, index, fit.columns),
          ),
      );
    } else this.add(() => this.buffer.appendText('display', `${placeholder(image)}\n`, index));
  }
}

const withNewline = (text: string) => (text.endsWith('\n') ? text : `${text}\n`);
