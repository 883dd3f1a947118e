/**
 * MIME bundle → outputs: the text to show (and its markdown, when it has one), at most one image
 * with its pixel size, JSON data and status events.
 *
 * Text precedence follows the spec, `text/markdown` > `text/plain` > `text/html`, with one
 * exception: a `text/plain` that is only the runner's `repr()` of an object that also offered HTML
 * (the frame says `plainIsRepr`, e.g. a pandas DataFrame) ranks below the HTML, which is shown as
 * markdown (tables stay tables). Payloads too large to show are left out with a notice.
 */
import type { MimeBundle } from '../protocol/index.js';
import { megabytes } from './artifact.js';
import { HTML_LIMIT, htmlToMarkdown } from './html.js';
import { cutPoint, oneLine } from './text.js';

export { HTML_LIMIT, htmlToMarkdown } from './html.js';

export const STATUS_MIME = 'application/x-omp-status';
/** text/plain with terminal colours, beside text/plain (the js kernel's results). */
const ANSI_MIME = 'application/x-omp-ansi';
/** Base64 characters of the largest image that is passed on (12 MiB of PNG or JPEG). */
export const IMAGE_LIMIT = 16 * 1024 * 1024;
/** Characters of JSON shown as text for a bundle that has nothing else to show. */
const JSON_TEXT_LIMIT = 64 * 1024;

export interface ImageOutput {
  mime: 'image/png' | 'image/jpeg';
  /** base64 */
  data: string;
  width?: number;
  height?: number;
}

export interface StatusEvent {
  op: string;
  [key: string]: unknown;
}

export interface RenderOptions {
  /** The bundle's text/plain is only repr() of the object (the frame's `plainIsRepr`). */
  plainIsRepr?: boolean;
}

export interface RenderedOutput {
  /** What a plain-text reader sees: the chosen text form (markdown source for markdown and HTML). */
  text?: string;
  /** Set when the text is markdown (from text/markdown or converted HTML): renderMarkdown() it. */
  markdown?: string;
  /** The same text with terminal colours (the js kernel's util.inspect), for a colour terminal. */
  ansi?: string;
  images: ImageOutput[];
  /** Images over IMAGE_LIMIT: not shown (the text says so), but a result keeps them in files. */
  tooLarge: ImageOutput[];
  /** HTML whose text form was cut at HTML_LIMIT (the text says so): a result keeps it in a file. */
  cutHtml?: string;
  json?: unknown;
  /** The MIME types the bundle carried. */
  mimeTypes: string[];
  bundle: MimeBundle;
}

/** Width and height from a PNG's IHDR chunk or a JPEG's SOF marker. */
export function imageSize(mime: string, base64: string): { width: number; height: number } | undefined {
  const bytes = Buffer.from(base64.slice(0, 1 << 16), 'base64');
  if (mime === 'image/png') {
    if (bytes.length < 24 || bytes.toString('latin1', 12, 16) !== 'IHDR') return undefined;
    return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
  }
  if (mime === 'image/jpeg') {
    let i = 2;
    while (i + 9 < bytes.length) {
      if (bytes[i] !== 0xff) return undefined;
      const marker = bytes[i + 1] as number;
      const length = bytes.readUInt16BE(i + 2);
      if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
        return { height: bytes.readUInt16BE(i + 5), width: bytes.readUInt16BE(i + 7) };
      }
      i += 2 + length;
    }
  }
  return undefined;
}

/** Base64 whose bytes start as a PNG (or JPEG) file does. */
function isImageData(mime: 'image/png' | 'image/jpeg', base64: string): boolean {
  if (!/^[A-Za-z0-9+/\s]*={0,2}\s*$/.test(base64)) return false;
  const head = Buffer.from(base64.slice(0, 16), 'base64');
  return mime === 'image/png'
    ? head.subarray(0, 8).equals(PNG_SIGNATURE)
    : head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff;
}
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** A line for an SVG image: its size from the width/height attributes or the viewBox. */
function svgText(svg: string): string {
  const tag = svg.match(/<svg\b[^>]*>/i)?.[0] ?? '';
  const attr = (name: string) => tag.match(new RegExp(`\\b${name}\\s*=\\s*["']([^"']*)["']`, 'i'))?.[1];
  let width = attr('width');
  let height = attr('height');
  const box = attr('viewBox')
    ?.trim()
    .split(/[\s,]+/);
  if ((!width || !height) && box?.length === 4) [width, height] = [box[2], box[3]];
  const size = width && height ? ` ${width.replace(/px$/, '')}×${height.replace(/px$/, '')}` : '';
  return `[SVG image${size}]`;
}

export function statusEvent(bundle: MimeBundle): StatusEvent | undefined {
  const status = bundle[STATUS_MIME];
  if (!status || typeof status !== 'object' || typeof (status as StatusEvent).op !== 'string')
    return undefined;
  return status as StatusEvent;
}

export function renderBundle(bundle: MimeBundle, options: RenderOptions = {}): RenderedOutput {
  const mimeTypes = Object.keys(bundle);
  const out: RenderedOutput = { images: [], tooLarge: [], mimeTypes, bundle };
  const str = (mime: string) => (typeof bundle[mime] === 'string' ? (bundle[mime] as string) : undefined);
  const notices: string[] = [];

  const markdown = str('text/markdown');
  const plain = str('text/plain');
  const html = str('text/html');
  if (markdown !== undefined) {
    out.text = out.markdown = markdown;
  } else if (html !== undefined && (plain === undefined || options.plainIsRepr)) {
    const converted = htmlToMarkdown(html);
    if (converted || plain === undefined) out.text = out.markdown = converted;
    if (html.length > HTML_LIMIT) out.cutHtml = html;
  }
  if (out.text === undefined && plain !== undefined) {
    out.text = plain;
    const ansi = str(ANSI_MIME);
    if (ansi !== undefined) out.ansi = ansi;
  }

  // One image per bundle: PNG when there is one (PIL offers PNG and JPEG of the same picture).
  for (const mime of ['image/png', 'image/jpeg'] as const) {
    const data = str(mime);
    if (!data) continue;
    // (An image left out for its size is not shown, so its bytes need no check.)
    if (data.length <= IMAGE_LIMIT && !isImageData(mime, data)) {
      // A caller that sends it on to a model would have the whole request refused.
      notices.push(`[${mime} data that is not a base64 ${mime.slice(6).toUpperCase()} image: not shown]`);
      continue;
    }
    const size = imageSize(mime, data);
    if (data.length > IMAGE_LIMIT) {
      const dims = size ? ` ${size.width}×${size.height}` : '';
      notices.push(
        `[${mime.slice(6)} image${dims} of ${megabytes((data.length * 3) / 4)} not shown: ` +
          `images over ${megabytes((IMAGE_LIMIT * 3) / 4)} are left out]`,
      );
      out.tooLarge.push({ mime, data, ...size });
    } else {
      out.images.push({ mime, data, ...size });
    }
    break;
  }
  if ('application/json' in bundle) out.json = bundle['application/json'];
  if (out.text === undefined && out.images.length === 0) {
    const svg = str('image/svg+xml');
    const latex = str('text/latex');
    if (svg !== undefined) out.text = svgText(svg);
    else if (latex !== undefined) out.text = latex;
    else if (out.json !== undefined) {
      const json = JSON.stringify(out.json, null, 2) ?? '';
      out.text =
        json.length > JSON_TEXT_LIMIT
          ? `${json.slice(0, cutPoint(json, JSON_TEXT_LIMIT))}\n[JSON cut for display: ${megabytes(json.length)} in all]`
          : json;
    }
  }
  if (notices.length) {
    const tail = notices.join('\n');
    out.text = out.text ? `${out.text}\n${tail}` : tail;
    if (out.markdown !== undefined) out.markdown = `${out.markdown}\n\n${tail}`;
  }
  return out;
}

/** Ops that are the bridge's bookkeeping, not status. */
export const BOOKKEEPING_OPS: ReadonlySet<string> = new Set(['timeout-pause', 'timeout-resume']);

/**
 * Status events of magics that print what they did themselves (or, quiet, chose not to): a
 * person's front end (the notebook, `run`) does not repeat them; the tool's text keeps them, for
 * an agent that reads where `%cd -q` went or what `%timeit -q` measured.
 */
const ECHO_OPS: ReadonlySet<string> = new Set(['cd', 'time', 'timeit']);

/**
 * The line a person's front end (the notebook, `run`) shows for a status event: the short line
 * of the tool's text, but nothing for a magic that printed what it did itself (ECHO_OPS).
 */
export function shownStatusLine(event: StatusEvent): string | undefined {
  return ECHO_OPS.has(event.op) ? undefined : statusLine(event);
}

/**
 * A status event as one short line of text (`[log] message`), for readers of the text only (an
 * agent reads the text, not the events); undefined for bookkeeping and for the start of a bridge
 * call (its end has a line).
 */
export function statusLine(event: StatusEvent): string | undefined {
  if (BOOKKEEPING_OPS.has(event.op)) return undefined;
  if ((event.op === 'agent' || event.op === 'completion') && event.state === 'started') return undefined;
  const s = (value: unknown) => oneLine(String(value ?? ''), 160);
  const op = s(event.op);
  switch (event.op) {
    case 'log':
      return `[log] ${s(event.message)}`;
    case 'phase':
      return `[phase] ${s(event.title)}`;
    case 'read':
      return `[read ${s(event.path)}: ${s(event.lines)} of ${s(event.total)} line${event.total === 1 ? '' : 's'}]`;
    case 'write':
    case 'append':
      return `[${op} ${s(event.path)}: ${s(event.chars)} chars]`;
    case 'tree':
      return `[tree ${s(event.path)}: ${s(event.entries)} ${event.entries === 1 ? 'entry' : 'entries'}]`;
    case 'diff':
      return `[diff: ${s(event.changed)} line${event.changed === 1 ? '' : 's'} changed]`;
    case 'agent':
    case 'completion': {
      const label = event.label && event.label !== event.op ? ` ${s(event.label)}` : '';
      const error = event.error !== undefined ? `: ${s(event.error)}` : '';
      return `[${op}${label} ${s(event.state)}${error}]`;
    }
    default: {
      const { op: _op, ...rest } = event;
      const detail = Object.keys(rest).length ? ` ${oneLine(JSON.stringify(rest), 160)}` : '';
      return `[${op}]${detail}`;
    }
  }
}
