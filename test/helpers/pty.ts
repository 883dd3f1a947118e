import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pty from '@lydell/node-pty';
import xterm from '@xterm/headless';
import { BIN } from './cli.js';
import { deadlineIn } from './kernel.js';

export interface Screen {
  /** The visible screen, one line per row, trailing spaces removed. */
  text: () => string;
  /** The scroll-back and the screen. */
  all: () => string;
  waitFor: (predicate: (screen: string) => boolean, what?: string, timeoutMs?: number) => Promise<string>;
  /** Types text, pauses, and presses Enter (text and Enter in one write would arrive as a paste). */
  run: (code: string) => Promise<void>;
  write: (data: string) => void;
  resize: (columns: number, rows: number) => void;
  exited: Promise<{ exitCode: number; signal?: number }>;
  /** `exited`, or an error with the screen once `timeoutMs` passed. */
  ended: (what?: string, timeoutMs?: number) => Promise<{ exitCode: number; signal?: number }>;
  pid: number;
  kill: () => void;
  /** Closes the terminal itself (its master side), sending no signal to the notebook. */
  closeTerminal: () => void;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** bin/omp-eval.js in a real pseudo-terminal, its output fed to a headless terminal emulator. */
export function openNotebook(
  args: string[] = [],
  opts: {
    columns?: number;
    rows?: number;
    env?: NodeJS.ProcessEnv;
    /**
     * Runs the notebook in a session of its own (`setsid -w`), as `su` or a wrapper would: the
     * terminal is not its controlling terminal, so its closing sends it no SIGHUP.
     */
    ownSession?: boolean;
    /** Runs the notebook as a job of an interactive bash (job control: Ctrl-Z, `fg`). */
    inShell?: boolean;
  } = {},
): Screen {
  const columns = opts.columns ?? 100;
  const rows = opts.rows ?? 30;
  const term = new xterm.Terminal({
    cols: columns,
    rows,
    allowProposedApi: true,
    convertEol: true,
    scrollback: 10_000,
  });
  const home = mkdtempSync(join(tmpdir(), 'omp-e2e-'));
  const [file, argv] = opts.ownSession
    ? ['setsid', ['-w', process.execPath, BIN, ...args]]
    : opts.inShell
      ? ['bash', ['--norc', '--noprofile', '-i']]
      : [process.execPath, [BIN, ...args]];
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    CI: 'false',
    TERM: 'xterm-256color',
    FORCE_COLOR: '1',
    OMP_EVAL_HISTORY: join(home, 'history.json'),
    PS1: '$ ',
    ...opts.env,
  };
  // (a variable given as undefined is not set at all)
  for (const [name, value] of Object.entries(env)) if (value === undefined) delete env[name];
  const child = pty.spawn(file, argv, {
    name: 'xterm-256color',
    cols: columns,
    rows,
    cwd: process.cwd(),
    env: env as Record<string, string>,
  });
  child.onData((data) => term.write(data));
  if (opts.inShell) {
    const quote = (word: string) => `'${word.replaceAll("'", "'\\''")}'`;
    child.write(`${[process.execPath, BIN, ...args].map(quote).join(' ')}\r`);
  }
  // The terminal's replies to queries (DA1 to the image-protocol query), as a real terminal sends.
  term.onData((data) => {
    try {
      child.write(data);
    } catch {
      // the notebook has ended
    }
  });
  const exited = new Promise<{ exitCode: number; signal?: number }>((resolve) => child.onExit(resolve));
  const text = () => {
    const buffer = term.buffer.active;
    const lines: string[] = [];
    for (let i = 0; i < term.rows; i++)
      lines.push(buffer.getLine(buffer.viewportY + i)?.translateToString(true) ?? '');
    return lines.join('\n').replace(/\s+$/, '');
  };
  const all = () => {
    const buffer = term.buffer.active;
    const lines: string[] = [];
    for (let i = 0; i < buffer.length; i++) lines.push(buffer.getLine(i)?.translateToString(true) ?? '');
    return lines.join('\n').replace(/\s+$/, '');
  };
  return {
    text,
    all,
    async waitFor(predicate, what = 'screen', timeoutMs = 60_000) {
      const until = deadlineIn(timeoutMs);
      while (!predicate(text())) {
        if (Date.now() > until) throw new Error(`timed out waiting for ${what}; screen:\n${text()}`);
        await sleep(25);
      }
      return text();
    },
    async run(code) {
      child.write(code);
      await sleep(80);
      child.write('\r');
    },
    write: (data) => child.write(data),
    resize(c, r) {
      child.resize(c, r);
      term.resize(c, r);
    },
    exited,
    async ended(what = 'the notebook to end', timeoutMs = 60_000) {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`timed out waiting for ${what}; screen:\n${text()}`)),
          timeoutMs,
        );
      });
      try {
        return await Promise.race([exited, late]);
      } finally {
        clearTimeout(timer);
      }
    },
    pid: child.pid,
    kill: () => child.kill(),
    // (UnixTerminal's destroy(): the typings name only kill().)
    closeTerminal: () => (child as unknown as { destroy(): void }).destroy(),
  };
}
