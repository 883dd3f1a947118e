import { describe, expect, it } from 'vitest';
import { ABSORB_MS, ARMED_MS, ctrlC } from '../../src/tui/keys/ctrlC.js';
import { commandOf, KEY_BINDINGS, keysHelp } from '../../src/tui/keys/keyBindings.js';
import { keyEvents, nameOfSequence } from '../../src/tui/keys/parseKey.js';

describe('raw input as keys', () => {
  it('text and Enter in one read are typing and Enter (tmux send-keys, fast typists)', () => {
    expect(keyEvents('4+4\r')).toEqual([{ text: '4+4' }, { key: 'enter' }]);
    expect(keyEvents('x=123\x7f\x7f')).toEqual([
      { text: 'x=123' },
      { key: 'backspace' },
      { key: 'backspace' },
    ]);
  });

  it('keys that arrive together are keys, in order: each CR an Enter (only a bracketed paste is text)', () => {
    expect(keyEvents('c = 3\ra + b + c\r')).toEqual([
      { text: 'c = 3' },
      { key: 'enter' },
      { text: 'a + b + c' },
      { key: 'enter' },
    ]);
    expect(keyEvents('x\ny')).toEqual([{ text: 'x' }, { key: 'ctrl+j' }, { text: 'y' }]);
  });

  it('tells Backspace from Delete, and names modified keys', () => {
    expect(keyEvents('\x7f')).toEqual([{ key: 'backspace' }]);
    expect(nameOfSequence('\x1b[3~')).toBe('delete');
    expect(nameOfSequence('\x1b[1;5D')).toBe('ctrl+left');
    expect(nameOfSequence('\x1b[1;3C')).toBe('alt+right');
    expect(nameOfSequence('\x1b\x1b[A')).toBe('alt+up');
    expect(nameOfSequence('\x1bb')).toBe('alt+b');
    expect(nameOfSequence('\x1b\x7f')).toBe('alt+backspace');
    expect(nameOfSequence('\x1b[Z')).toBe('shift+tab');
    expect(keyEvents('\x04')).toEqual([{ key: 'ctrl+d' }]);
  });
});

describe('key bindings', () => {
  it('give every key one command, and /help a line per described binding', () => {
    const keys = KEY_BINDINGS.flatMap((b) => b.keys);
    expect(new Set(keys).size).toBe(keys.length);
    expect(commandOf('delete')).toBe('deleteForward');
    expect(commandOf('alt+backspace')).toBe('deleteWordBackward');
    expect(commandOf('ctrl+right')).toBe('wordRight');
    const help = keysHelp();
    expect(help).toHaveLength(KEY_BINDINGS.filter((b) => b.description).length);
    expect(help.find(([label]) => label.includes('Ctrl-O'))?.[1]).toMatch(/print the whole output/);
  });
});

describe('Ctrl-C', () => {
  const idle = { now: 10_000, running: false, searching: false, menuOpen: false, promptEmpty: true };

  it('interrupts a running cell, and takes quick presses after it as part of the interrupt', () => {
    expect(ctrlC({ ...idle, running: true })).toBe('interrupt');
    expect(ctrlC({ ...idle, running: true, lastInterrupt: 10_000 - 200 })).toBe('absorb');
    // The cell ended: presses right after it never arm the exit, let alone exit.
    expect(ctrlC({ ...idle, lastInterrupt: 10_000 - 300 })).toBe('absorb');
    expect(ctrlC({ ...idle, lastInterrupt: 10_000 - ABSORB_MS })).toBe('arm');
  });

  it('arms the exit on an empty prompt; the second press exits only while it is armed', () => {
    expect(ctrlC(idle)).toBe('arm');
    expect(ctrlC({ ...idle, armedAt: 10_000 - 500 })).toBe('exit');
    expect(ctrlC({ ...idle, armedAt: 10_000 - ARMED_MS })).toBe('arm');
    expect(ctrlC({ ...idle, promptEmpty: false })).toBe('clearPrompt');
    expect(ctrlC({ ...idle, searching: true })).toBe('endSearch');
  });
});
