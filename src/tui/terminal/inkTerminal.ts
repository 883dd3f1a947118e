/**
 * Three workarounds for Ink 6.8, which does not export its instances: this reaches them by file, and
 * when the internals are not shaped as expected (another Ink version) it does nothing. The fields
 * it reads are part of the notebook's contract with Ink (docs/ink.md): test/unit/ink-contract.test.ts
 * fails when one is missing, with Ink's files and with the bundle.
 *
 * 1. A frame that Ink's output throttle holds back can be written *after* a newer one, leaving an
 *    old frame (a keystroke already undone) on screen: clearing the live region drops it.
 * 2. On a resize Ink erases as many rows as its frame had, but a terminal that reflows its lines
 *    (xterm.js, tmux, VTE, iTerm2, kitty) has just made a narrowed frame taller, so old rows stay
 *    behind in the scroll-back. The notebook erases the reflowed frame itself and lets React draw
 *    the new one; nothing of the transcript is printed again.
 * 3. Text printed above the live region (a finished cell) is written under the frame Ink drew
 *    last. While the throttle holds back a newer frame (the running cell just ended), that is the
 *    old one: drawn again below the print, it scrolled the print up, and was erased by the held
 *    frame, leaving blank rows. Then nothing is drawn under the print: the held frame follows
 *    within the throttle's 33 ms. (Drawing the held frame at once instead renders a frame per
 *    print: over 1,000 pasted cells that left the notebook 35 MB larger.)
 */
import { inkInstances } from '../ink.js';
import { columnsOf } from '../text/textWidth.js';

type LogUpdate = ((output: string) => boolean) & { clear?: () => void; sync?: (output: string) => void };

interface InkInternals {
  log?: LogUpdate;
  throttledLog?: { cancel?: () => void };
  hasPendingThrottledRender?: boolean;
  lastOutput?: string;
  lastOutputToRender?: string;
  lastOutputHeight?: number;
  unsubscribeResize?: () => void;
}

async function inkInstance(stdout: NodeJS.WriteStream): Promise<InkInternals | undefined> {
  return (await inkInstances())?.get(stdout) as InkInternals | undefined;
}

/**
 * Rows a frame takes once the terminal has reflowed it to `columns`. Measured as Ink measures
 * (columnsOf): the frame's narrow lines need no grapheme segmentation, whose first emoji test
 * compiled a regular expression of every emoji inside the first resize (some 70 ms).
 */
export function reflowedRows(frame: string, columns: number): number {
  return frame
    .split('\n')
    .reduce((n, line) => n + Math.max(1, Math.ceil(columnsOf(line) / Math.max(1, columns))), 0);
}

export interface TerminalHooks {
  /** Erases the live frame as the terminal now shows it; Ink then draws the next one afresh. */
  eraseForResize: () => void;
  /** Before a print: while Ink's throttle holds a newer frame back, the old one is not drawn again. */
  dropHeldFrame: () => void;
}

export async function adaptInk(stdout: NodeJS.WriteStream): Promise<TerminalHooks | undefined> {
  const ink = await inkInstance(stdout);
  const log = ink?.log;
  const clear = log?.clear;
  const sync = log?.sync;
  const throttled = ink?.throttledLog;
  if (!ink || typeof log !== 'function' || typeof clear !== 'function' || typeof sync !== 'function')
    return undefined;
  if (typeof throttled?.cancel !== 'function') return undefined;
  // What is on screen now: the frame last written, which a held-back frame may differ from.
  let written = '';
  ink.log = Object.assign((output: string) => {
    written = output;
    return log(output);
  }, log);
  ink.log.clear = () => {
    throttled.cancel?.();
    written = '';
    clear.call(log);
  };
  ink.log.sync = (output: string) => {
    written = output;
    sync.call(log, output);
  };
  if (typeof ink.unsubscribeResize !== 'function') return undefined;
  ink.unsubscribeResize();
  return {
    dropHeldFrame() {
      if (!ink.hasPendingThrottledRender) return;
      ink.lastOutput = '';
      ink.lastOutputToRender = '';
    },
    eraseForResize() {
      throttled.cancel?.();
      const frame = written.replace(/\n$/, '');
      if (frame) {
        // The cursor is on the row below the frame: erase it and each of the frame's rows, up to
        // its first, line by line as Ink erases. (Erasing the screen below from there was, to
        // tmux, a clear of the screen when the frame began at its top: tmux moves a cleared
        // screen into the scroll-back, and each resize left a copy of the frame there.)
        stdout.write(`\r\x1b[2K${'\x1b[1A\x1b[2K'.repeat(reflowedRows(frame, stdout.columns || 80))}`);
      }
      ink.log?.sync?.('');
      ink.lastOutput = '';
      ink.lastOutputToRender = '';
      ink.lastOutputHeight = 0;
    },
  };
}
