import { useCallback, useEffect, useRef, useState } from 'react';
import { useStdout } from '../ink.js';
import { adaptInk, type TerminalHooks } from '../terminal/inkTerminal.js';
import { suspendProcess } from '../terminal/terminalModes.js';

/**
 * Columns and rows of the terminal, updated on resize. A resize erases the live frame as the
 * terminal reflowed it and draws it again at the new size; the transcript above is the terminal's
 * own scroll-back and is never printed again. `beforePrint` keeps an old frame that Ink's throttle
 * has replaced from being drawn again under text printed above the live region.
 */
export function useTerminalSize(): {
  columns: number;
  rows: number;
  beforePrint: () => void;
  /** Ctrl-Z: erases the live frame, stops until `fg`, draws it again; false when it cannot stop. */
  suspend: () => boolean;
} {
  const { stdout } = useStdout();
  const read = () => ({ columns: stdout.columns || 80, rows: stdout.rows || 24 });
  const [size, setSize] = useState(read);
  const hooksRef = useRef<TerminalHooks | undefined>(undefined);
  const beforePrint = useCallback(() => hooksRef.current?.dropHeldFrame(), []);
  const suspend = useCallback(() => {
    // (The shell's lines come below the transcript, and the frame is drawn afresh under them.)
    hooksRef.current?.eraseForResize();
    const stopped = suspendProcess({ stdin: process.stdin, stdout });
    setSize({ columns: stdout.columns || 80, rows: stdout.rows || 24 });
    return stopped;
  }, [stdout]);
  useEffect(() => {
    let active = true;
    void adaptInk(stdout).then((h) => {
      if (active) hooksRef.current = h;
    });
    const onResize = () => {
      if (!active) return;
      hooksRef.current?.eraseForResize();
      // A new object every time: React draws the frame again even when the size is the same.
      setSize({ columns: stdout.columns || 80, rows: stdout.rows || 24 });
    };
    stdout.on('resize', onResize);
    return () => {
      active = false;
      stdout.off('resize', onResize);
    };
  }, [stdout]);
  return { ...size, beforePrint, suspend };
}
