/**
 * Frames of a running cell → what front ends see (OutputEvent) and what the cell's result
 * collects (text in the sink, images, JSON, status events). The watchdog hears the bridge's
 * timeout pauses here.
 */

import { type ImageOutput, renderBundle, type StatusEvent, statusEvent } from '../output/display.js';
import type { OutputSink } from '../output/outputSink.js';
import type { Frame, MimeBundle } from '../protocol/index.js';
import type { Watchdog } from './watchdog.js';

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
      /** js: the code the cell passed to process.exit(). */
      exitCode?: number;
    }
  | { kind: 'status'; event: StatusEvent }
  /** clear_output(): what the cell showed so far is gone (a waiting clear arrives when due). */
  | { kind: 'clear_output' }
  /** set_next_input() and %load: text for the next prompt (a notebook puts it there). */
  | { kind: 'set_next_input'; text: string; replace: boolean }
  | { kind: 'input_request'; prompt: string; password: boolean }
  | { kind: 'notice'; text: string };

/** What a cell's result collects besides its text. */
export interface Collected {
  images: ImageOutput[];
  json: unknown[];
  statusEvents: StatusEvent[];
}

/** Turns one cell's frames into events, its sink's text and collected outputs. */
export function frameHandler(
  sink: OutputSink,
  collected: Collected,
  watchdog: Watchdog,
  emit: (event: OutputEvent) => void,
): (frame: Frame) => void {
  return (frame) => {
    switch (frame.type) {
      case 'started':
        watchdog.start();
        emit({ kind: 'started' });
        break;
      case 'stdout':
      case 'stderr':
        sink.push(frame.data);
        emit({ kind: frame.type, text: frame.data });
        break;
      case 'display':
      case 'result':
        onBundle(frame, sink, collected, watchdog, emit);
        break;
      case 'error':
        sink.push(`${frame.traceback.join('\n')}\n`);
        emit({
          kind: 'error',
          ename: frame.ename,
          evalue: frame.evalue,
          traceback: frame.traceback,
          ...(frame.exitCode !== undefined ? { exitCode: frame.exitCode } : {}),
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

function onBundle(
  frame: Extract<Frame, { type: 'display' | 'result' }>,
  sink: OutputSink,
  collected: Collected,
  watchdog: Watchdog,
  emit: (event: OutputEvent) => void,
) {
  const status = statusEvent(frame.bundle);
  if (status) {
    if (status.op === 'timeout-pause') watchdog.pause();
    else if (status.op === 'timeout-resume') watchdog.resume();
    else if (status.op === 'clear_output') {
      // As in Jupyter, the cell's output is what came after the last clear.
      sink.clear();
      collected.images.length = 0;
      collected.json.length = 0;
      emit({ kind: 'clear_output' });
      return;
    } else collected.statusEvents.push(status);
    if (status.op === 'set_next_input' && typeof status.text === 'string')
      emit({ kind: 'set_next_input', text: status.text, replace: status.replace === true });
    else emit({ kind: 'status', event: status });
    return;
  }
  const out = renderBundle(frame.bundle, { plainIsRepr: frame.plainIsRepr === true });
  collected.images.push(...out.images);
  if (out.json !== undefined) collected.json.push(out.json);
  if (out.text !== undefined) sink.push(out.text.endsWith('\n') ? out.text : `${out.text}\n`);
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
}
