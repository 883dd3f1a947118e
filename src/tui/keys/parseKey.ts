/**
 * Raw terminal input → key names. Ink's input parser hands over text runs and escape sequences
 * one at a time; this names them ("ctrl+left", "alt+backspace", "delete") so bindings can be data.
 * Ink's own useInput cannot tell Backspace (DEL) from Delete (ESC [3~), or Ctrl-Left from Left.
 */

/** One event of the input: a named key, or text to insert. */
export type KeyEvent = { key: string } | { text: string };

const SEQUENCES: Record<string, string> = {
  '\x1b[A': 'up',
  '\x1b[B': 'down',
  '\x1b[C': 'right',
  '\x1b[D': 'left',
  '\x1bOA': 'up',
  '\x1bOB': 'down',
  '\x1bOC': 'right',
  '\x1bOD': 'left',
  '\x1b[H': 'home',
  '\x1b[F': 'end',
  '\x1bOH': 'home',
  '\x1bOF': 'end',
  '\x1b[1~': 'home',
  '\x1b[4~': 'end',
  '\x1b[7~': 'home',
  '\x1b[8~': 'end',
  '\x1b[3~': 'delete',
  '\x1b[5~': 'pageup',
  '\x1b[6~': 'pagedown',
  '\x1b[Z': 'shift+tab',
  '\x1b[200~': 'paste-start',
  '\x1b[201~': 'paste-end',
  '\x1b': 'escape',
  '\x1b\x1b': 'escape',
  '\x1b\r': 'alt+enter',
  '\x1b\n': 'alt+enter',
  '\x1b\x7f': 'alt+backspace',
  '\x1b\b': 'alt+backspace',
};

/** xterm's modifier parameter: 2 shift, 3 alt, 5 ctrl, ... (bits of n - 1). */
function modifiers(n: number): string {
  const bits = n - 1;
  return `${bits & 4 ? 'ctrl+' : ''}${bits & 2 ? 'alt+' : ''}${bits & 1 ? 'shift+' : ''}`;
}

const ARROW: Record<string, string> = { A: 'up', B: 'down', C: 'right', D: 'left', H: 'home', F: 'end' };

/** The name of one escape sequence, or undefined when it is none the notebook knows. */
export function nameOfSequence(sequence: string): string | undefined {
  const known = SEQUENCES[sequence];
  if (known) return known;
  // ESC [1;5D (ctrl+left), ESC [1;3A (alt+up), ESC [3;5~ (ctrl+delete)
  // biome-ignore lint/suspicious/noControlCharactersInRegex: escape sequences are what it reads
  const modified = /^\x1b\[(\d+);(\d+)([A-DHF~])$/.exec(sequence);
  if (modified) {
    const name = modified[3] === '~' ? SEQUENCES[`\x1b[${modified[1]}~`] : ARROW[modified[3] as string];
    return name ? `${modifiers(Number(modified[2]))}${name}` : undefined;
  }
  // ESC ESC [A: alt+arrow in terminals that prefix ESC for Alt.
  if (sequence.startsWith('\x1b\x1b')) {
    const inner = nameOfSequence(sequence.slice(1));
    return inner ? `alt+${inner}` : undefined;
  }
  // ESC b, ESC f, ESC d: Alt with a letter.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: escape sequences are what it reads
  if (/^\x1b[\x20-\x7e]$/.test(sequence)) return `alt+${(sequence[1] as string).toLowerCase()}`;
  return undefined;
}

/** The name of a control character (Ctrl-A is "ctrl+a", DEL is "backspace"). */
function nameOfControl(char: string): string {
  const code = char.charCodeAt(0);
  if (char === '\r') return 'enter';
  if (char === '\n') return 'ctrl+j';
  if (char === '\t') return 'tab';
  if (char === '\x7f' || char === '\b') return 'backspace';
  if (code === 0) return 'ctrl+space';
  if (code < 27) return `ctrl+${String.fromCharCode(code + 96)}`;
  return `ctrl+${String.fromCharCode(code + 64).toLowerCase()}`;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds
const CONTROL = /[\x00-\x1f\x7f]/;

/**
 * One input event of Ink's parser as key events. A text run is split at its control characters
 * ("x=12" DEL DEL is text then two Backspaces; "4+4" CR is text then Enter). Keys that reach the
 * notebook together (typed ahead while it was busy, a multiplexer's burst, a terminal without
 * bracketed paste) are still keys, in order: each CR is an Enter, as in IPython. Only a bracketed
 * paste (useKeys) goes in as text, newlines included.
 */
export function keyEvents(input: string): KeyEvent[] {
  if (input.startsWith('\x1b')) {
    const name = nameOfSequence(input);
    return name ? [{ key: name }] : [];
  }
  const events: KeyEvent[] = [];
  let text = '';
  for (const char of input) {
    if (CONTROL.test(char)) {
      if (text) events.push({ text });
      text = '';
      events.push({ key: nameOfControl(char) });
    } else text += char;
  }
  if (text) events.push({ text });
  return events;
}
