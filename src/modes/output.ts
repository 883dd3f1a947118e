/**
 * Writes executor events as plain text: stdout to stdout, stderr, errors and notices to stderr.
 * Used where there is no notebook screen (pipes, `omp-eval run`, line mode).
 */
import { type OutputEvent, type Session, shownStatusLine, withoutToolAdvice } from '../eval/index.js';

/** set_next_input() and %load put text into a notebook's next prompt; here there is none. */
export const NEXT_INPUT_NOTICE = 'set_next_input: ignored here (only the notebook has a next prompt)';
/** clear_output() in a terminal, as IPython's terminal does it: the current line is erased. */
const CLEAR_LINE = '\x1b[2K\r';

export interface Streams {
  out: NodeJS.WritableStream;
  err: NodeJS.WritableStream;
}

/**
 * Writes one event. Returns a promise that settles when the stream has drained, if it is full, so
 * the caller can hand it back to the executor as backpressure.
 */
export function writeEvent(event: OutputEvent, streams: Streams): Promise<unknown> | undefined {
  const { out, err } = streams;
  const ok = writeText(event, streams);
  if (ok) return undefined;
  const full = event.kind === 'stdout' || event.kind === 'result' || event.kind === 'display' ? out : err;
  return drained(full);
}

/** Each full stream's one wait for 'drain' (or its end), however many writes found it full. */
const drains = new WeakMap<object, Promise<void>>();

/**
 * When `stream` drains. One listener per stream, not one per write: the events already on their
 * way when the kernel's output pauses each find the stream full, and a reader that went away
 * (`| head`) never drains it (a listener per write was node's "possible memory leak" warning on
 * stderr, before the broken pipe ended the command).
 */
function drained(stream: NodeJS.WritableStream): Promise<void> {
  let wait = drains.get(stream);
  if (!wait) {
    wait = new Promise<void>((resolve) => {
      const done = () => {
        stream.off('drain', done);
        stream.off('close', done);
        drains.delete(stream);
        resolve();
      };
      stream.on('drain', done);
      stream.on('close', done);
    });
    drains.set(stream, wait);
  }
  return wait;
}

/** The streams whose last text left a line open (no newline at its end). */
const openLine = new WeakSet<object>();

/** Writes `text`, noting whether it leaves the line open. */
function writeTracked(stream: NodeJS.WritableStream, text: string): boolean {
  // (A line erased, CLEAR_LINE's `\r` and erase, is as good as ended: nothing is on it.)
  if (text) {
    if (text.endsWith('\n') || text === CLEAR_LINE) openLine.delete(stream);
    else openLine.add(stream);
  }
  return stream.write(text);
}

function writeText(event: OutputEvent, { out, err }: Streams): boolean {
  switch (event.kind) {
    case 'stdout':
      return writeTracked(out, event.text);
    case 'stderr':
      return err.write(event.text);
    case 'result':
    case 'display': {
      const text = readerText(event);
      const lines = [
        ...(text !== undefined ? [text] : []),
        ...event.images.map((i) => `[image ${i.width ?? '?'}×${i.height ?? '?'} ${i.mime.slice(6)}]`),
      ];
      // (On a line of its own, as a notebook shows each output apart: not glued to `partial`.)
      const before = openLine.has(out) ? '\n' : '';
      return lines.length ? writeTracked(out, `${before}${lines.join('\n')}\n`) : true;
    }
    case 'error':
      return event.traceback.length ? err.write(`${event.traceback.join('\n')}\n`) : true;
    case 'status': {
      const line = shownStatusLine(event.event);
      return line === undefined ? true : err.write(`${line}\n`);
    }
    case 'notice':
      // (The eval tool's advice, `{ reset: true }`, means nothing here.)
      return err.write(`[${withoutToolAdvice(event.text)}]\n`);
    case 'set_next_input':
      return err.write(`[${NEXT_INPUT_NOTICE}]\n`);
    case 'clear_output':
      return (out as { isTTY?: boolean }).isTTY ? writeTracked(out, CLEAR_LINE) : true;
    default:
      return true;
  }
}

/**
 * An output's text for a reader of plain text: the object's own text form where the notebook would
 * show its HTML as a table (a DataFrame prints as ipython3 prints it, not as a markdown table's
 * source); markdown the object gave itself stays as it is.
 */
function readerText(event: Extract<OutputEvent, { kind: 'result' | 'display' }>): string | undefined {
  const plain = event.bundle['text/plain'];
  if (
    event.markdown !== undefined &&
    event.bundle['text/markdown'] === undefined &&
    typeof plain === 'string' &&
    !DEFAULT_REPR.test(plain)
  )
    return plain;
  return event.text;
}

/** object.__repr__'s text (`<IPython.core.display.HTML object>`), which says nothing of the HTML. */
const DEFAULT_REPR = /^<[\w.]+ object( at 0x[0-9a-f]+)?>$/;

/** The whole of a stream, as UTF-8. */
export async function readStream(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Writes what threads and callbacks of earlier cells print while no cell runs (between cells, or
 * after the last one), as it comes: nothing a script prints is dropped. Returns the unsubscribe.
 */
export function writeBackground(session: Pick<Session, 'onBackground'>, { out, err }: Streams): () => void {
  return session.onBackground((frame) => {
    if (frame.type === 'stdout') writeTracked(out, frame.data);
    else if (frame.type === 'stderr') err.write(frame.data);
  });
}
