/**
 * omp-eval in tmux (Debian's, which .ci/run installs), as many people run it: tmux is a terminal
 * with habits of its own that a terminal emulator in the tests (xterm.js) does not have.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN } from './cli.js';
import { deadlineIn } from './kernel.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface TmuxOptions {
  /** omp-eval's arguments (none: the notebook). */
  args?: string[];
  /** More environment for omp-eval. */
  env?: Record<string, string>;
}

/**
 * omp-eval in a tmux server of the test's own (its own socket, no configuration), one window of
 * `columns` × `rows`.
 */
export function openTmux(columns: number, rows: number, options: TmuxOptions = {}) {
  const home = mkdtempSync(join(tmpdir(), 'omp-tmux-'));
  // (The notebook runs in `home`: a cell can wait for this file, which the test makes.)
  const flag = join(home, 'go');
  const socket = join(home, 's');
  const tmux = (...args: string[]) =>
    execFileSync('tmux', ['-S', socket, '-f', '/dev/null', ...args]).toString();
  const quote = (word: string) => `'${word.replaceAll("'", "'\\''")}'`;
  const env = { CI: 'false', TMPDIR: home, OMP_EVAL_HISTORY: join(home, 'history.json'), ...options.env };
  const command = [
    'env',
    ...Object.entries(env).map(([k, v]) => `${k}=${v}`),
    process.execPath,
    BIN,
    ...(options.args ?? []),
  ].map(quote);
  tmux(
    'new-session',
    '-d',
    '-s',
    'nb',
    '-c',
    home,
    '-x',
    String(columns),
    '-y',
    String(rows),
    command.join(' '),
  );
  // The pane stays when omp-eval ends, with its last screen, for the test to read.
  tmux('set-option', '-t', 'nb', 'remain-on-exit', 'on');
  /** The scroll-back and the screen. */
  const all = () => tmux('capture-pane', '-p', '-t', 'nb', '-S', '-', '-E', '-');
  /** The scroll-back and the screen, each line the terminal wrapped joined again (-J). */
  const joined = () => tmux('capture-pane', '-p', '-J', '-t', 'nb', '-S', '-', '-E', '-');
  const screen = () => tmux('capture-pane', '-p', '-t', 'nb');
  return {
    flag,
    all,
    joined,
    screen,
    keys: (...keys: string[]) => tmux('send-keys', '-t', 'nb', ...keys),
    /** Whether omp-eval has ended (its pane kept, dead). */
    ended: () => tmux('display-message', '-p', '-t', 'nb', '#{pane_dead}').trim() === '1',
    /** Pastes a file's text as tmux pastes (its LFs sent as CRs), bracketed as the notebook asked. */
    paste(file: string) {
      tmux('load-buffer', file);
      tmux('paste-buffer', '-p', '-t', 'nb');
    },
    resize: (c: number, r: number) => tmux('resize-window', '-t', 'nb', '-x', String(c), '-y', String(r)),
    async waitFor(predicate: (screen: string) => boolean, what: string) {
      const until = deadlineIn(60_000);
      for (;;) {
        const text = screen();
        if (predicate(text)) return text;
        if (Date.now() > until) throw new Error(`timed out waiting for ${what}; screen:\n${text}`);
        await sleep(25);
      }
    },
    close() {
      try {
        tmux('kill-server');
      } catch {
        // gone already
      }
      rmSync(home, { recursive: true, force: true });
    },
  };
}
