/**
 * Frames of a running cell → what front ends see (OutputEvent) and what the cell's result
 * collects (text in the sink, images, JSON, status events; status events also as short lines of
 * the text).
 */

import type { ResultCollector } from '../output/collected.js';
import {
  BOOKKEEPING_OPS,
  type ImageOutput,
  renderBundle,
  type StatusEvent,
  statusEvent,
  statusLine,
} from '../output/display.js';
import type { OutputSink } from '../output/outputSink.js';
import type { Frame, MimeBundle } from '../protocol/index.js';
import type { CellBridgeWatch } from './bridgeActivity.js';

/** What a front end sees while a cell runs. */
export type OutputEvent =
  | { kind: 'started' }
  | { kind: 'stdout' | 'stderr'; text: string }
  | {
      kind: 'display' | 'result';
      /** The bundle's text as plain text (for markdown and HTML: the markdown source). */
      text?: string;
      /** Set when `text` is markdown (text/markdown, or HTML converted): render it as markdown. */
      markdown?: string;
      /** `text` with terminal colours, when the kernel sent them (js results). */
      ansi?: string;
      /** At most one image (PNG preferred). */
      images: ImageOutput[];
      json?: unknown;
      /** The MIME types the bundle carried. */
      mimeTypes?: string[];
      /** display(obj, display_id=...): later outputs with `update` replace this one. */
      displayId?: string;
      /** This output replaces the earlier one with the same displayId. */
      update?: boolean;
      /** The MIME bundle as the kernel sent it (what .ipynb files keep). */
      bundle: MimeBundle;
      /** Jupyter's display metadata, per MIME type (an image's width and height). */
      metadata?: Record<string, unknown>;
    }
  | {
      kind: 'error';
      ename: string;
      evalue: string;
      traceback: string[];
      /** js: the code the cell passed to process.exit(); py: the exit status a SystemExit asks for. */
      exitCode?: number;
      /** py: what Python prints as a SystemExit with a code that is not an integer ends it. */
      exitMessage?: string;
    }
  | { kind: 'status'; event: StatusEvent }
  /** clear_output(): what the cell showed so far is gone (a waiting clear arrives when due). */
  | { kind: 'clear_output' }
  /** set_next_input() and %load: text for the next prompt (a notebook puts it there). */
  | { kind: 'set_next_input'; text: string; replace: boolean }
  | { kind: 'input_request'; prompt: string; password: boolean }
  | { kind: 'notice'; text: string };

/** What the frames of one attempt at a cell feed. */
export interface FrameTargets {
  sink: OutputSink;
  collector: ResultCollector;
  /** Hears the cell's `started` (the watchdog starts) and the kernel's bridge bookkeeping. */
  bridge: CellBridgeWatch;
  emit: (event: OutputEvent) => void;
}

/** Turns one cell's frames into events, its sink's text and collected outputs. */
export function frameHandler(targets: FrameTargets): (frame: Frame) => void {
  const { sink, emit } = targets;
  return (frame) => {
    switch (frame.type) {
      case 'started':
        targets.bridge.started(frame.id);
        emit({ kind: 'started' });
        break;
      case 'stdout':
      case 'stderr':
        sink.push(frame.data);
        emit({ kind: frame.type, text: frame.data });
        break;
      case 'display':
      case 'result':
        onBundle(frame, targets);
        break;
      case 'error':
        if (frame.traceback.length) sink.pushBlock(`${frame.traceback.join('\n')}\n`);
        emit({
          kind: 'error',
          ename: frame.ename,
          evalue: frame.evalue,
          traceback: frame.traceback,
          ...(frame.exitCode !== undefined ? { exitCode: frame.exitCode } : {}),
          ...(frame.exitMessage !== undefined ? { exitMessage: frame.exitMessage } : {}),
        });
        break;
      case 'input_request':
        emit({ kind: 'input_request', prompt: frame.prompt, password: frame.password });
        break;
      default:
        break;
    }
  };
}

function onBundle(frame: Extract<Frame, { type: 'display' | 'result' }>, targets: FrameTargets) {
  const { sink, collector, emit } = targets;
  const status = statusEvent(frame.bundle);
  if (status) {
    // A status bundle can come from any code in the cell: it never pauses the timeout (only the
    // host's own count of the cell's bridge calls does). The end of a call the kernel gave up
    // on is heard, since the host's command may run on after it.
    if (status.op === 'timeout-resume') targets.bridge.kernelEnded();
    if (BOOKKEEPING_OPS.has(status.op)) return;
    if (status.op === 'clear_output') {
      // As in Jupyter, the cell's output is what came after the last clear.
      sink.clear();
      collector.clearDisplays();
      emit({ kind: 'clear_output' });
      return;
    }
    collector.addStatus(status);
    const line = statusLine(status);
    if (line !== undefined) sink.pushBlock(`${line}\n`);
    if (status.op === 'set_next_input' && typeof status.text === 'string')
      emit({ kind: 'set_next_input', text: status.text, replace: status.replace === true });
    else emit({ kind: 'status', event: status });
    return;
  }
  const out = renderBundle(frame.bundle, { plainIsRepr: frame.plainIsRepr === true });
  // (Images the result cannot keep are saved as files a notice names: no line of their own here.)
  const kept = out.images.filter((image) => collector.addImage(image));
  for (const image of out.tooLarge) collector.addImage(image);
  if (out.json !== undefined) collector.addJson(out.json);
  if (out.text !== undefined) sink.pushBlock(out.text.endsWith('\n') ? out.text : `${out.text}\n`);
  // Where the image was shown (between the prints around it), as a line of the text.
  for (const image of kept)
    sink.pushBlock(`[image ${image.width ?? '?'}×${image.height ?? '?'} ${image.mime.slice(6)}]\n`);
  const { displayId, metadata } = frame;
  emit({
    kind: frame.type,
    bundle: frame.bundle,
    ...(metadata ? { metadata } : {}),
    images: out.images,
    mimeTypes: out.mimeTypes,
    ...(out.text !== undefined ? { text: out.text } : {}),
    ...(out.markdown !== undefined ? { markdown: out.markdown } : {}),
    ...(out.ansi !== undefined ? { ansi: out.ansi } : {}),
    ...(out.json !== undefined ? { json: out.json } : {}),
    ...(displayId !== undefined ? { displayId } : {}),
    ...(displayId !== undefined && frame.update === true ? { update: true } : {}),
  });
  // (Under the output it belongs to; the result's notices say it again for the tool's text.)
  if (out.cutHtml !== undefined) emit({ kind: 'notice', text: collector.addCutHtml(out.cutHtml) });
}
