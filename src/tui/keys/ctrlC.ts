/**
 * What Ctrl-C does, as a pure decision. The first press interrupts a running cell; presses within
 * ABSORB_MS of an interrupt (or of the interrupted cell's end) are taken as part of it, so a user
 * pressing repeatedly to stop a cell never quits the notebook and loses the kernel. On an empty
 * prompt a press arms the exit, and a second one within ARMED_MS exits.
 */
export const ABSORB_MS = 1000;
export const ARMED_MS = 2000;

export type CtrlCAction = 'interrupt' | 'absorb' | 'endSearch' | 'closeMenu' | 'clearPrompt' | 'arm' | 'exit';

export interface CtrlCSituation {
  now: number;
  running: boolean;
  /** When the last interrupt was sent, or the cell it stopped ended. */
  lastInterrupt?: number;
  /** When the exit was armed, if it is. */
  armedAt?: number;
  searching: boolean;
  menuOpen: boolean;
  promptEmpty: boolean;
}

export function ctrlC(s: CtrlCSituation): CtrlCAction {
  const recent = s.lastInterrupt !== undefined && s.now - s.lastInterrupt < ABSORB_MS;
  if (s.running) return recent ? 'absorb' : 'interrupt';
  if (recent) return 'absorb';
  if (s.searching) return 'endSearch';
  if (s.menuOpen) return 'closeMenu';
  if (!s.promptEmpty) return 'clearPrompt';
  return s.armedAt !== undefined && s.now - s.armedAt < ARMED_MS ? 'exit' : 'arm';
}
