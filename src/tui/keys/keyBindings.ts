/**
 * Every key of the notebook as data: the command it runs, the keys that run it, and the line
 * `/help` shows for it. The key handler looks commands up here; nothing else names a key.
 */

export type KeyCommand =
  | 'submit'
  | 'newline'
  | 'interrupt'
  | 'deleteOrExit'
  | 'historyPrevious'
  | 'historyNext'
  | 'historySearch'
  | 'left'
  | 'right'
  | 'wordLeft'
  | 'wordRight'
  | 'home'
  | 'end'
  | 'backspace'
  | 'deleteForward'
  | 'deleteToSpace'
  | 'deleteWordBackward'
  | 'deleteWordForward'
  | 'killToStart'
  | 'killToEnd'
  | 'transpose'
  | 'yank'
  | 'complete'
  | 'completePrevious'
  | 'escape'
  | 'showOutput'
  | 'selectEarlier'
  | 'selectLater'
  | 'clearScreen'
  | 'suspend';

export interface KeyBinding {
  command: KeyCommand;
  keys: readonly string[];
  /** What /help says; bindings without one are not listed. */
  description?: string;
}

export const KEY_BINDINGS: readonly KeyBinding[] = [
  { command: 'submit', keys: ['enter'], description: 'run the cell when it is complete, else a new line' },
  { command: 'newline', keys: ['alt+enter', 'ctrl+j'], description: 'new line without running' },
  {
    command: 'interrupt',
    keys: ['ctrl+c'],
    description: 'interrupt the running cell; on the prompt, clear it; twice on an empty prompt, exit',
  },
  {
    command: 'deleteOrExit',
    keys: ['ctrl+d'],
    description:
      'delete forward; exit on an empty prompt when no cell runs (attached: none of yours); end an empty input()',
  },
  {
    command: 'historyPrevious',
    keys: ['up'],
    description: 'move up, or the previous history entry (at input(): earlier answers)',
  },
  { command: 'historyNext', keys: ['down'], description: 'move down, or the next history entry' },
  { command: 'historySearch', keys: ['ctrl+r'], description: 'search the history' },
  { command: 'left', keys: ['left', 'ctrl+b'] },
  { command: 'right', keys: ['right', 'ctrl+f'] },
  {
    command: 'wordLeft',
    keys: ['alt+b', 'ctrl+left', 'alt+left'],
    description: 'move one word left (Alt-F, Ctrl-Right: right)',
  },
  { command: 'wordRight', keys: ['alt+f', 'ctrl+right', 'alt+right'] },
  { command: 'home', keys: ['home', 'ctrl+a'], description: 'start / end of the line (Ctrl-E, End)' },
  { command: 'end', keys: ['end', 'ctrl+e'] },
  { command: 'backspace', keys: ['backspace'] },
  { command: 'deleteForward', keys: ['delete'], description: 'delete the character under the cursor' },
  {
    command: 'deleteToSpace',
    keys: ['ctrl+w'],
    description:
      'delete back to the previous space (Alt-Backspace: the word before the cursor; Alt-D: after it)',
  },
  { command: 'deleteWordBackward', keys: ['alt+backspace'] },
  { command: 'deleteWordForward', keys: ['alt+d'] },
  { command: 'killToStart', keys: ['ctrl+u'], description: 'delete to the start / end of the line (Ctrl-K)' },
  { command: 'killToEnd', keys: ['ctrl+k'] },
  { command: 'transpose', keys: ['ctrl+t'], description: 'swap the characters before and under the cursor' },
  {
    command: 'yank',
    keys: ['ctrl+y'],
    description: 'insert the text the last deletes of a word or line removed',
  },
  {
    command: 'complete',
    keys: ['tab'],
    description: 'complete (again: next choice; Shift-Tab: previous; Enter keeps it, Esc undoes it)',
  },
  { command: 'completePrevious', keys: ['shift+tab'] },
  { command: 'escape', keys: ['escape'] },
  {
    command: 'showOutput',
    keys: ['ctrl+o'],
    description: 'print the whole output of the selected cell (the latest by default)',
  },
  { command: 'selectEarlier', keys: ['alt+up'], description: 'select an earlier / later cell (Alt-Down)' },
  { command: 'selectLater', keys: ['alt+down'] },
  { command: 'clearScreen', keys: ['ctrl+l'], description: 'clear the screen' },
  {
    command: 'suspend',
    keys: ['ctrl+z'],
    description: 'suspend the notebook (fg in the shell resumes it); its kernels keep their state',
  },
];

const BY_KEY = new Map<string, KeyCommand>(KEY_BINDINGS.flatMap((b) => b.keys.map((k) => [k, b.command])));

/** The command a key runs, if any. */
export function commandOf(key: string): KeyCommand | undefined {
  return BY_KEY.get(key);
}

/** "ctrl+shift+tab" → "Ctrl-Shift-Tab", as /help writes keys. */
function keyLabel(key: string): string {
  return key
    .split('+')
    .map((part) => (part.length === 1 ? part.toUpperCase() : part[0]?.toUpperCase() + part.slice(1)))
    .join('-');
}

/** The key section of /help, generated from the bindings. */
export function keysHelp(): [label: string, description: string][] {
  return KEY_BINDINGS.filter((b) => b.description).map((b) => [
    b.keys.map(keyLabel).join(', '),
    b.description as string,
  ]);
}
