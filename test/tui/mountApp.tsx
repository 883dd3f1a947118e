/** The notebook's App mounted on a FakeBackend that replays fixtures, for the component tests beside it. */
import { App } from '../../src/tui/App.js';
import { FakeBackend, type Fixture } from '../helpers/fakeBackend.js';
import { type Harness, KEYS, mount } from '../helpers/ink.js';

export const mounted: Harness[] = [];

/** A clock the test moves by hand (Ctrl-C's windows). */
export class FakeClock {
  t = 1_000_000;
  now = () => this.t;
  advance(ms: number) {
    this.t += ms;
  }
}

export function start(
  fixtures: Record<string, Fixture> = {},
  size: { columns?: number; rows?: number } = {},
  opts: { color?: boolean; clock?: FakeClock; backend?: FakeBackend } = {},
) {
  const backend = opts.backend ?? new FakeBackend(fixtures);
  let exited = 0;
  const h = mount(
    <App
      backend={backend}
      imageMode="off"
      color={opts.color ?? false}
      onExit={() => exited++}
      {...(opts.clock ? { clock: opts.clock.now } : {})}
    />,
    size,
  );
  mounted.push(h);
  return { h, backend, exited: () => exited };
}

export async function run(h: Harness, code: string) {
  await h.type(code);
  await h.press(KEYS.enter);
}

/** Runs a cell magic's cell (`%%js`): its body ends with an empty line, so Enter twice. */
export async function runBody(h: Harness, code: string) {
  await run(h, code);
  await h.waitFor((f) => /^\s*\.\.\.:\s*$/m.test(f), 'the empty line that ends the body');
  await h.press(KEYS.enter);
}

/** The screen with what changes from run to run (spinner frames, elapsed times) made constant. */
export const screen = (frame: string) =>
  frame
    .replace(/\s+$/gm, '')
    .replace(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/g, '⠿')
    .replace(/\d+(\.\d+)? (ms|s)\b/g, 'N ms');

/** How many times `needle` occurs in `text`. */
export const count = (text: string, needle: string) => text.split(needle).length - 1;

/**
 * The prompt as the frame shows it: from its `In [n]:` line (or the history search standing in its
 * place) down to the status line, the completion menu included; trailing spaces are not shown.
 */
export function promptOf(frame: string): string {
  const lines = frame.split('\n');
  let at = lines.length - 1;
  while (at > 0 && !/^(In \[\d+\]:|\((failed )?reverse-i-search\))/.test(lines[at] ?? '')) at--;
  return lines.slice(at, -1).join('\n');
}

/** The status line: the frame's last line. */
export const statusOf = (frame: string) => frame.slice(frame.lastIndexOf('\n') + 1);

/**
 * Does `act` (a key) and returns the prompt once it shows something else: what it shows is the
 * test's to expect (a wrong text fails there, not as a timeout).
 */
export async function promptAfter(h: Harness, act: () => Promise<void>): Promise<string> {
  await h.stdout.settled();
  const before = promptOf(h.frame());
  await act();
  return promptOf(await h.waitFor((f) => promptOf(f) !== before, `the prompt to change from ${before}`));
}
