import { EventEmitter } from 'node:events';
import { render } from 'ink';
import type { ReactElement } from 'react';

/** A terminal for Ink: a size that can change, every write recorded. */
export class FakeStdout extends EventEmitter {
  writes: string[] = [];
  constructor(
    public columns = 100,
    public rows = 30,
  ) {
    super();
  }
  isTTY = true;
  write = (data: string) => {
    this.writes.push(data);
    return true;
  };
  resize(columns: number, rows: number) {
    this.columns = columns;
    this.rows = rows;
    this.emit('resize');
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

export const stripAnsi = (text: string) => text.replace(/\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07/g, '');

export interface Harness {
  stdout: FakeStdout;
  /** The screen as Ink's last debug frame (static output + live region), ANSI stripped. */
  frame: () => string;
  type: (text: string) => Promise<void>;
  press: (key: string) => Promise<void>;
  waitFor: (predicate: (frame: string) => boolean, what?: string) => Promise<string>;
  unmount: () => void;
}

export const KEYS = {
  enter: '\r',
  ctrlC: '\x03',
  ctrlD: '\x04',
  ctrlO: '\x0f',
  up: '\x1b[A',
  down: '\x1b[B',
  altUp: '\x1b\x1b[A',
  backspace: '\x7f',
  pasteStart: '\x1b[200~',
  pasteEnd: '\x1b[201~',
};

const tick = () => new Promise((r) => setTimeout(r, 15));

/**
 * Renders an element the way the app is rendered (exitOnCtrlC off), in debug mode so every frame
 * holds the whole screen.
 */
export function mount(
  element: ReactElement,
  opts: { columns?: number; rows?: number; debug?: boolean } = {},
): Harness {
  const stdout = new FakeStdout(opts.columns, opts.rows);
  const stdin = new FakeStdin();
  const instance = render(element, {
    stdout: stdout as unknown as NodeJS.WriteStream,
    stdin: stdin as unknown as NodeJS.ReadStream,
    stderr: stdout as unknown as NodeJS.WriteStream,
    debug: opts.debug ?? true,
    exitOnCtrlC: false,
    patchConsole: false,
  });
  const frame = () => stripAnsi(stdout.writes.at(-1) ?? '');
  return {
    stdout,
    frame,
    async type(text) {
      stdin.write(text);
      await tick();
    },
    async press(key) {
      stdin.write(key);
      await tick();
    },
    async waitFor(predicate, what = 'screen') {
      const until = Date.now() + 60_000;
      while (!predicate(frame())) {
        if (Date.now() > until) throw new Error(`timed out waiting for ${what}; screen:\n${frame()}`);
        await tick();
      }
      return frame();
    },
    unmount: () => instance.unmount(),
  };
}
