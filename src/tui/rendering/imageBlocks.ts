/**
 * Images as half-block text for Ink's frame (terminal-image without its native protocols). Loaded
 * on the first image only: terminal-image brings image decoders that start-up should not pay for.
 */
import terminalImage from 'terminal-image';
import type { ImageOutput } from '../../eval/index.js';
import { placeholder } from './images.js';

/** The image as half-block rows `columns` wide at most (and 2 × `maxRows` pixels high). */
export async function renderBlocks(image: ImageOutput, columns: number, maxRows = 30): Promise<string> {
  try {
    const data = Buffer.from(image.data, 'base64');
    return await terminalImage.buffer(data, {
      width: columns,
      height: maxRows,
      preserveAspectRatio: true,
      preferNativeRender: false,
    });
  } catch {
    return placeholder(image);
  }
}
