/**
 * Images in the terminal. Inside Ink's frame they are half-block text (terminal-image without its
 * native protocols); `off`, or no colour, gives a one-line placeholder.
 */
import terminalImage from 'terminal-image';
import type { ImageOutput } from '../../eval/index.js';

export type ImageMode = 'auto' | 'kitty' | 'iterm' | 'blocks' | 'off';

export function placeholder(image: ImageOutput): string {
  return `[image ${image.width ?? '?'}×${image.height ?? '?'} ${image.mime.slice('image/'.length)}]`;
}

/** What `auto` means in this terminal. Native protocols are used only where they are known to work. */
export function resolveImageMode(mode: ImageMode, env: NodeJS.ProcessEnv, color: boolean): ImageMode {
  if (mode !== 'auto') return color || mode === 'off' ? mode : 'off';
  if (!color) return 'off';
  if (env.TMUX) return 'blocks'; // tmux swallows the native protocols
  if (env.TERM === 'xterm-kitty' || env.KITTY_WINDOW_ID) return 'kitty';
  if (env.TERM_PROGRAM === 'iTerm.app' || env.LC_TERMINAL === 'iTerm2') return 'iterm';
  return 'blocks';
}

/** The image as half-block rows at most `width` columns wide (and 2 × `maxRows` pixels high). */
export async function renderBlocks(image: ImageOutput, width: number, maxRows = 30): Promise<string> {
  try {
    const data = Buffer.from(image.data, 'base64');
    const columns = Math.max(8, Math.min(width, image.width ?? width));
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

/** The escape sequence that shows the image through the terminal's own protocol. */
export function nativeImage(image: ImageOutput, mode: 'kitty' | 'iterm', columns: number): string {
  if (mode === 'iterm') {
    const size = Buffer.byteLength(image.data, 'base64');
    return `\x1b]1337;File=inline=1;size=${size};width=${columns};preserveAspectRatio=1:${image.data}\x07\n`;
  }
  // Kitty: PNG payload in chunks of 4096 base64 characters.
  const chunks = image.data.match(/.{1,4096}/g) ?? [];
  return `${chunks
    .map((chunk, i) => {
      const more = i < chunks.length - 1 ? 1 : 0;
      const head = i === 0 ? `a=T,f=100,c=${columns},m=${more}` : `m=${more}`;
      return `\x1b_G${head};${chunk}\x1b\\`;
    })
    .join('')}\n`;
}
