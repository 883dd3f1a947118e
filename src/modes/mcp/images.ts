/**
 * Images for MCP `image` content blocks: PNG or JPEG whose long side is at most 1568 px (what
 * vision models use without scaling again) and whose payload is bounded. Images within the limits
 * pass through untouched; the rest are decoded and re-encoded with jimp, imported only then.
 */
import { ArtifactFile, type ImageOutput } from './engine.js';

export const MAX_SIDE = 1568;
/** Decoded bytes of one image block. */
export const MAX_IMAGE_BYTES = 1024 * 1024;
/** Image blocks in one result, and their decoded bytes together. */
export const MAX_IMAGES = 8;
export const MAX_TOTAL_BYTES = 4 * 1024 * 1024;

export interface FittedImage {
  mimeType: 'image/png' | 'image/jpeg';
  /** base64 */
  data: string;
  width?: number;
  height?: number;
  /** What was done to it (scaled, re-encoded). */
  note?: string;
}

/**
 * An image the result cannot carry, kept as an `artifact://<id>` resource (its original bytes, a
 * file in `dir`, the session's artifacts folder), or why it could not be.
 */
export function saveImage(image: ImageOutput, dir?: string): { uri: string } | { error: string } {
  const file = ArtifactFile.create(image.mime === 'image/png' ? 'png' : 'jpg', dir);
  if (typeof file === 'string') return { error: file };
  file.writeBytes(Buffer.from(image.data, 'base64'));
  file.close();
  return file.error ? { error: file.error } : { uri: file.uri };
}

const decodedBytes = (base64: string) => Math.floor((base64.length * 3) / 4);

/** The image as it can be sent: scaled down and re-encoded when it is too large. */
export async function fitImage(image: ImageOutput): Promise<FittedImage> {
  const { width, height } = image;
  const bytes = decodedBytes(image.data);
  const sizeKnown = width !== undefined && height !== undefined;
  if (sizeKnown && Math.max(width, height) <= MAX_SIDE && bytes <= MAX_IMAGE_BYTES) {
    return { mimeType: image.mime, data: image.data, width, height };
  }
  const { Jimp } = await import('jimp');
  const picture = await Jimp.fromBuffer(Buffer.from(image.data, 'base64'));
  const original = `${picture.width}×${picture.height}`;
  if (Math.max(picture.width, picture.height) > MAX_SIDE) picture.scaleToFit({ w: MAX_SIDE, h: MAX_SIDE });
  let mimeType: FittedImage['mimeType'] = image.mime;
  let buffer = await picture.getBuffer(mimeType);
  for (let attempt = 0; buffer.length > MAX_IMAGE_BYTES && attempt < 4; attempt++) {
    if (mimeType === 'image/png') {
      // Photographs compress far better as JPEG; try that before losing pixels.
      mimeType = 'image/jpeg';
    } else {
      const factor = Math.sqrt(MAX_IMAGE_BYTES / buffer.length) * 0.9;
      picture.resize({ w: Math.max(1, Math.round(picture.width * factor)) });
    }
    buffer = await picture.getBuffer(mimeType, mimeType === 'image/jpeg' ? { quality: 80 } : {});
  }
  if (buffer.length > MAX_IMAGE_BYTES) throw new Error(`still ${buffer.length} bytes after scaling`);
  const size = `${picture.width}×${picture.height}`;
  const changes = [
    ...(size !== original ? [`scaled from ${original}`] : []),
    ...(mimeType !== image.mime ? [`re-encoded as ${mimeType.slice(6)}`] : []),
  ];
  return {
    mimeType,
    data: buffer.toString('base64'),
    width: picture.width,
    height: picture.height,
    ...(changes.length ? { note: changes.join(', ') } : {}),
  };
}
