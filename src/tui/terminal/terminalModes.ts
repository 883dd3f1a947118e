/**
 * The terminal modes the notebook sets, and what gives the terminal back to the shell for a while
 * (Ctrl-Z) and takes it again (`fg`).
 */
export const BRACKETED_PASTE_ON = '\x1b[?2004h';
export const BRACKETED_PASTE_OFF = '\x1b[?2004l';
const SHOW_CURSOR = '\x1b[?25h';
const HIDE_CURSOR = '\x1b[?25l';

interface Terminal {
  stdin: Pick<NodeJS.ReadStream, 'isTTY'> & { setRawMode?: (raw: boolean) => unknown };
  stdout: { write(text: string): unknown };
}

/**
 * Ctrl-Z, as a terminal's own: the terminal goes back to how the shell left it (line discipline,
 * the cursor shown, no bracketed paste) and the notebook's process group stops (SIGTSTP); the
 * kernels, in groups of their own, go on. `kill` returns once the group is continued (`fg`, `bg`)
 * or at once when nothing could stop it (a process group no job-control shell knows, which the
 * system does not stop): either way the notebook takes the terminal again. False when there is no
 * terminal to give back or no job control (Windows).
 */
export function suspendProcess(
  terminal: Terminal,
  kill: (pid: number, signal: NodeJS.Signals) => void = process.kill,
  platform: NodeJS.Platform = process.platform,
): boolean {
  const { stdin, stdout } = terminal;
  if (platform === 'win32' || !stdin.isTTY || typeof stdin.setRawMode !== 'function') return false;
  stdout.write(BRACKETED_PASTE_OFF + SHOW_CURSOR);
  stdin.setRawMode(false);
  try {
    kill(0, 'SIGTSTP'); // (pid 0: the process group, as the terminal's Ctrl-Z would signal it)
  } finally {
    stdin.setRawMode(true);
    stdout.write(BRACKETED_PASTE_ON + HIDE_CURSOR);
  }
  return true;
}
