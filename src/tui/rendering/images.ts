/**
 * Images in the terminal: which way to draw them, a one-line placeholder, and the native protocols'
 * escape sequences (written outside Ink's frame). Half blocks are in imageBlocks.ts.
 */
import type { ImageOutput } from '../../eval/index.js';

export type ImageMode = 'auto' | 'kitty' | 'iterm' | 'blocks' | 'off';

export function placeholder(image: ImageOutput): string {
  return `[image ${image.width ?? '?'}×${image.height ?? '?'} ${image.mime.slice('image/'.length)}]`;
}

/** Pixels of a terminal cell, roughly: a display's width and height metadata are in pixels. */
export const CELL_PX = { width: 8, height: 16 };

const pixels = (value: unknown) => (typeof value === 'number' && value > 0 ? value : undefined);

/**
 * The cells an image is drawn in: what its display metadata asks for (`{"width": 200}`, in
 * pixels, as Jupyter reads it; the aspect ratio kept when only one is given), else no more
 * columns than it has pixels; never more than `maxColumns` × `maxRows`.
 */
export function imageColumns(
  image: Pick<ImageOutput, 'width'>,
  metadata: unknown,
  maxColumns: number,
  maxRows: number,
): { columns: number; rows: number } {
  const meta = typeof metadata === 'object' && metadata !== null ? (metadata as Record<string, unknown>) : {};
  const width = pixels(meta.width);
  const height = pixels(meta.height);
  return {
    columns: Math.max(
      1,
      Math.min(maxColumns, width ? Math.round(width / CELL_PX.width) : (image.width ?? maxColumns)),
    ),
    rows: height ? Math.min(maxRows, Math.max(1, Math.round(height / CELL_PX.height))) : maxRows,
  };
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
