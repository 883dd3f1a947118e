/**
 * Writes executor events as plain text: stdout to stdout, stderr, errors and notices to stderr.
 * Used where there is no notebook screen (pipes, `omp-eval run`, line mode).
 */
import type { OutputEvent } from '../eval/executor.js';

export interface Streams {
  out: NodeJS.WritableStream;
  err: NodeJS.WritableStream;
}

export function writeEvent(event: OutputEvent, { out, err }: Streams): void {
  switch (event.kind) {
    case 'stdout':
      out.write(event.text);
      break;
    case 'stderr':
      err.write(event.text);
      break;
    case 'result':
    case 'display': {
      const lines = [
        ...(event.text !== undefined ? [event.text] : []),
        ...event.images.map((i) => `[image ${i.width ?? '?'}×${i.height ?? '?'} ${i.mime.slice(6)}]`),
      ];
      if (lines.length) out.write(`${lines.join('\n')}\n`);
      break;
    }
    case 'error':
      err.write(`${event.traceback.join('\n')}\n`);
      break;
    case 'status':
      err.write(`· ${event.event.op}\n`);
      break;
    case 'notice':
      err.write(`[${event.text}]\n`);
      break;
    default:
      break;
  }
}

/** The whole of a stream, as UTF-8. */
export async function readStream(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
  return Buffer.concat(chunks).toString('utf8');
}
