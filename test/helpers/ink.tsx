import { EventEmitter } from 'node:events';
import xterm from '@xterm/headless';
import { render } from 'ink';
import type { ReactElement } from 'react';
import { deadlineIn } from './kernel.js';

/**
 * A terminal for Ink: a size that can change, every write recorded and fed to a headless
 * terminal emulator, as a real terminal would show it (the notebook prints finished cells outside
 * Ink's frame, so the screen, not Ink's last frame, is what a test reads).
 */
export class FakeStdout extends EventEmitter {
  writes: string[] = [];
  readonly term: xterm.Terminal;
  private pending = Promise.resolve();
  constructor(
    public columns = 100,
    public rows = 30,
  ) {
    super();
    this.term = new xterm.Terminal({
      cols: columns,
      rows,
      allowProposedApi: true,
      convertEol: true,
      scrollback: 100_000,
    });
  }
  isTTY = true;
  write = (data: string) => {
    this.writes.push(data);
    this.pending = this.pending.then(() => new Promise<void>((resolve) => this.term.write(data, resolve)));
    return true;
  };
  /** Waits until the emulator has taken everything written so far. */
  settled() {
    return this.pending;
  }
  resize(columns: number, rows: number) {
    this.columns = columns;
    this.rows = rows;
    this.term.resize(columns, rows);
    this.emit('resize');
  }
  /** Bytes written so far. */
  get bytes() {
    return this.writes.reduce((n, w) => n + Buffer.byteLength(w), 0);
  }
}

class FakeStdin extends EventEmitter {
  isTTY = true;
  private queue: string[] = [];
  setEncoding() {}
  setRawMode() {}
  resume() {}
  pause() {}
  ref() {}
  unref() {}
  read = () => this.queue.shift() ?? null;
  write(data: string) {
    this.queue.push(data);
    this.emit('readable');
  }
}

export interface Harness {
  stdout: FakeStdout;
  /** Everything the terminal shows and has scrolled back, one line per row, right-trimmed. */
  frame: () => string;
  /** The visible screen only. */
  screen: () => string;
  type: (text: string) => Promise<void>;
  press: (key: string) => Promise<void>;
  waitFor: (predicate: (frame: string) => boolean, what?: string, timeoutMs?: number) => Promise<string>;
  unmount: () => void;
}

export const KEYS = {
  enter: '\r',
  ctrlC: '\x03',
  ctrlD: '\x04',
  ctrlO: '\x0f',
  ctrlW: '\x17',
  tab: '\t',
  shiftTab: '\x1b[Z',
  escape: '\x1b',
  up: '\x1b[A',
  down: '\x1b[B',
  left: '\x1b[D',
  right: '\x1b[C',
  ctrlLeft: '\x1b[1;5D',
  ctrlRight: '\x1b[1;5C',
  altB: '\x1bb',
  altF: '\x1bf',
  altBackspace: '\x1b\x7f',
  altUp: '\x1b\x1b[A',
  backspace: '\x7f',
  delete: '\x1b[3~',
  pasteStart: '\x1b[200~',
  pasteEnd: '\x1b[201~',
};

const tick = () => new Promise((r) => setTimeout(r, 15));

function lines(term: xterm.Terminal, from: number, to: number): string {
  const buffer = term.buffer.active;
  const out: string[] = [];
  for (let i = from; i < to; i++) out.push(buffer.getLine(i)?.translateToString(true) ?? '');
  return out.join('\n').replace(/\s+$/, '');
}

/** Renders an element the way the app is rendered (exitOnCtrlC off) into a headless terminal. */
export function mount(element: ReactElement, opts: { columns?: number; rows?: number } = {}): Harness {
  const stdout = new FakeStdout(opts.columns, opts.rows);
  const stdin = new FakeStdin();
  const instance = render(element, {
    stdout: stdout as unknown as NodeJS.WriteStream,
    stdin: stdin as unknown as NodeJS.ReadStream,
    stderr: stdout as unknown as NodeJS.WriteStream,
    exitOnCtrlC: false,
    patchConsole: false,
  });
  const term = stdout.term;
  const frame = () => lines(term, 0, term.buffer.active.length);
  const screen = () => lines(term, term.buffer.active.viewportY, term.buffer.active.viewportY + term.rows);
  return {
    stdout,
    frame,
    screen,
    async type(text) {
      stdin.write(text);
      await tick();
    },
    async press(key) {
      stdin.write(key);
      await tick();
    },
    async waitFor(predicate, what = 'screen', timeoutMs = 60_000) {
      const until = deadlineIn(timeoutMs);
      await stdout.settled();
      while (!predicate(frame())) {
        if (Date.now() > until) throw new Error(`timed out waiting for ${what}; screen:\n${frame()}`);
        await tick();
        await stdout.settled();
      }
      return frame();
    },
    unmount: () => instance.unmount(),
  };
}
