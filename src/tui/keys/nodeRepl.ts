/**
 * Node's REPL commands typed as a JavaScript cell, as `node:repl` reads them: a line that starts
 * with `.` (not `..`, not a number such as `.5`) names a command. `.exit` and `.help` are the
 * notebook's /exit and /help; `.load FILE` runs the file as a cell; `.save FILE` writes the
 * session's JavaScript cells to FILE (never over an existing file); `.break` and `.clear` have
 * nothing to do in an editor that holds the whole cell, and say so; any other word is Node's
 * "Invalid REPL keyword".
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';

export interface NodeReplDeps {
  /** The kernel's working directory: FILE is relative to it, as `node` resolves it. */
  cwd: string;
  /** The code of the JavaScript cells run so far, in order. */
  jsCells: () => string[];
  runCommand: (line: string) => void;
  run: (code: string, title: string) => void;
  /** Prints an answer into the session. */
  message: (text: string) => void;
}

/** Runs `typed` when it is one of Node's REPL commands; false when it is JavaScript. */
export function nodeReplCommand(typed: string, deps: NodeReplDeps): boolean {
  if (!typed.startsWith('.') || typed.startsWith('..') || !Number.isNaN(Number.parseFloat(typed)))
    return false;
  if (typed.includes('\n')) return false;
  const [keyword = '', ...rest] = typed.slice(1).trim().split(/\s+/);
  const file = rest.join(' ');
  switch (keyword) {
    case 'exit':
    case 'help':
      deps.runCommand(`/${keyword}`);
      return true;
    case 'break':
    case 'clear':
      deps.message(
        keyword === 'break'
          ? '.break: nothing to abandon here (the prompt holds the whole cell; Ctrl-C clears it)'
          : '.clear: /restart gives fresh kernels (Python’s too); a reset: true cell resets one kernel',
      );
      return true;
    case 'editor':
      deps.message('The prompt is an editor already: Alt-Enter adds a line, Enter runs a complete cell');
      return true;
    case 'load':
    case 'save':
      if (!file) deps.message('The "file" argument must be specified');
      else if (keyword === 'load') load(file, deps);
      else save(file, deps);
      return true;
    default:
      deps.message('Invalid REPL keyword');
      return true;
  }
}

/**
 * Node's `.break` (or `.clear`) typed on the last line of a cell of several lines abandons the
 * input, as in `node`'s multi-line mode: the command, when it does.
 */
export function droppingCommand(lines: readonly string[]): string | undefined {
  const last = (lines.at(-1) ?? '').trim();
  return lines.length > 1 && (last === '.break' || last === '.clear') ? last : undefined;
}

function load(file: string, deps: NodeReplDeps) {
  let code: string;
  try {
    code = readFileSync(resolve(deps.cwd, file), 'utf8');
  } catch {
    deps.message(`Failed to load: ${file}`);
    return;
  }
  deps.run(code.replace(/\s+$/, ''), file);
}

function save(file: string, deps: NodeReplDeps) {
  const text = deps.jsCells().join('\n');
  try {
    // (Node's REPL replaces the file; the notebook keeps an existing one, as /save does)
    writeFileSync(resolve(deps.cwd, file), text ? `${text}\n` : '', { flag: 'wx' });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    deps.message(
      code === 'EEXIST'
        ? `Not saved: ${file} exists (choose another name)`
        : `Not saved: ${(err as Error).message}`,
    );
    return;
  }
  deps.message(`Session saved to: ${file}`);
}
