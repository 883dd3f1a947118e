/**
 * MIME bundle → outputs: the text to show, image payloads with their pixel size, JSON data and
 * status events. Text precedence follows the spec: markdown, then plain, then HTML.
 */
import type { MimeBundle } from './protocol.js';

export const STATUS_MIME = 'application/x-omp-status';

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

export interface RenderedOutput {
  text?: string;
  images: ImageOutput[];
  json?: unknown;
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

/** A plain-text reading of HTML: tags dropped, block ends as newlines, entities decoded. */
export function htmlToText(html: string): string {
  return html
    .replace(/<(script|style)[\s\S]*?<\/\1>/gi, '')
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<\/(p|div|tr|h[1-6]|li|table|thead|tbody)>/gi, '\n')
    .replace(/<\/t[dh]>/gi, '\t')
    .replace(/<[^>]+>/g, '')
    .replace(/&nbsp;/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

export function statusEvent(bundle: MimeBundle): StatusEvent | undefined {
  const status = bundle[STATUS_MIME];
  if (!status || typeof status !== 'object' || typeof (status as StatusEvent).op !== 'string')
    return undefined;
  return status as StatusEvent;
}

export function renderBundle(bundle: MimeBundle): RenderedOutput {
  const out: RenderedOutput = { images: [], bundle };
  const str = (mime: string) => (typeof bundle[mime] === 'string' ? (bundle[mime] as string) : undefined);
  const markdown = str('text/markdown');
  const plain = str('text/plain');
  const html = str('text/html');
  out.text = markdown ?? plain ?? (html !== undefined ? htmlToText(html) : undefined);
  for (const mime of ['image/png', 'image/jpeg'] as const) {
    const data = str(mime);
    if (data) out.images.push({ mime, data, ...imageSize(mime, data) });
  }
  if ('application/json' in bundle) out.json = bundle['application/json'];
  if (out.text === undefined && str('image/svg+xml')) out.text = '[SVG image]';
  if (out.text === undefined && str('text/latex')) out.text = str('text/latex');
  return out;
}
