import { createRequire } from 'node:module';
import type * as Acorn from 'acorn';
import { type CellLanguage, cellLanguage } from './script.js';

// acorn is loaded on the first js cell typed in a front end, not at every start.
const require = createRequire(import.meta.url);
let acorn: typeof Acorn | undefined;
const parse: typeof Acorn.parse = (source, options) => {
  acorn ??= require('acorn') as typeof Acorn;
  return acorn.parse(source, options);
};

/**
 * Whether a front end should run the code it has or wait for more lines, as IPython's terminal
 * decides: more input is
 * needed inside an open bracket or triple-quoted string, after a line ending in `:` or `\`, and
 * while the last line is indented (a block is closed by an empty line).
 */
export function needsMoreInput(code: string, language: CellLanguage = 'py'): boolean {
  if (!code.trim()) return false;
  if (language === 'js') return jsNeedsMoreInput(code);
  let depth = 0;
  let quote: string | undefined;
  for (let i = 0; i < code.length; i++) {
    const ch = code[i];
    if (quote) {
      if (ch === '\\') i++;
      else if (code.startsWith(quote, i)) {
        i += quote.length - 1;
        quote = undefined;
      } else if (ch === '\n' && quote.length === 1) quote = undefined;
    } else if (ch === '#') {
      while (i < code.length && code[i] !== '\n') i++;
    } else if (ch === '"' || ch === "'") {
      quote = code.startsWith(ch.repeat(3), i) ? ch.repeat(3) : ch;
      i += quote.length - 1;
    } else if (ch === '(' || ch === '[' || ch === '{') depth++;
    else if (ch === ')' || ch === ']' || ch === '}') depth = Math.max(0, depth - 1);
  }
  if (depth > 0 || quote?.length === 3) return true;
  const lines = code.split('\n');
  const last = lines.at(-1) ?? '';
  if (last.trim() === '') return false; // an empty line ends the cell
  if (code.trimStart().startsWith('%%')) return true; // a cell magic's body ends with an empty line
  const codePart = (line: string) => line.replace(/#.*$/, '').trimEnd();
  const stripped = codePart(last);
  if (stripped.endsWith(':') || stripped.endsWith('\\')) return true;
  if (stripped.trimStart().startsWith('@')) return true; // a decorator: its def follows
  // Inside a block (some line opened one), an indented last line means the block goes on.
  const inBlock = lines.some((line) => codePart(line).endsWith(':'));
  return inBlock && /^\s/.test(last);
}

/**
 * The indentation for a new line after `line`: the same, one level more after a `:`, one level
 * less after a statement that ends its block (`pass`, `return`, `break`, `continue`, `raise`).
 */
export function autoIndent(line: string): string {
  const indent = /^\s*/.exec(line)?.[0] ?? '';
  const code = line.replace(/#.*$/, '').trim();
  if (code.endsWith(':')) return `${indent}    `;
  if (/^(pass|break|continue|return\b.*|raise\b.*)$/.test(code))
    return indent.slice(0, Math.max(0, indent.length - 4));
  return indent;
}

/**
 * JavaScript: more input is needed while the code ends inside something still open (a bracket,
 * a template literal, a block comment), which the parser reports as an error at the very end;
 * blank lines inside a function or an object do not end the cell (as in Node's REPL).
 */
function jsNeedsMoreInput(code: string): boolean {
  const source = cellLanguage(code, 'js').code;
  if (!source.trim()) return true; // just the %%js line: the cell follows
  // Two empty lines run the cell whatever is open (a typo such as `foo(` must not hold it forever).
  if (/\n[ \t]*\n[ \t]*$/.test(source)) return false;
  try {
    parse(source, { ecmaVersion: 'latest', allowAwaitOutsideFunction: true, allowHashBang: true });
    return false;
  } catch (err) {
    const e = err as { pos?: number; message?: string };
    if (/Unterminated (template|comment)/.test(e.message ?? '')) return true;
    if (e.pos === undefined || e.pos < source.trimEnd().length) {
      // Maybe a module (import statements); anything else is an error for the kernel to report.
      if (/\bimport\b/.test(source)) {
        try {
          parse(source, { ecmaVersion: 'latest', sourceType: 'module', allowHashBang: true });
          return false;
        } catch (moduleErr) {
          const m = moduleErr as { pos?: number };
          return m.pos !== undefined && m.pos >= source.trimEnd().length;
        }
      }
      return false;
    }
    return true;
  }
}

/** needsMoreInput for a cell typed in a front end, whose first line may be `%%js` or `%%py`. */
export function cellNeedsMoreInput(
  text: string,
  fallback: CellLanguage,
  opts: { lines?: boolean } = {},
): boolean {
  const cell = cellLanguage(text, fallback);
  const magic = cell.code !== text;
  if (magic && !cell.code.trim()) return true; // just the magic line: the body follows
  // Read line by line (piped input), an empty line ends a Python cell as it always did (open
  // brackets too) and a `%%js` / `%%py` body, like %%bash; a js cell only while nothing is open.
  // In the notebook, Enter runs a complete body.
  if (opts.lines) {
    const endsBlank = text.includes('\n') && (text.split('\n').at(-1) ?? '').trim() === '';
    if (magic && !endsBlank) return true;
    if (endsBlank && cell.language === 'py') return false;
  }
  return needsMoreInput(cell.code, cell.language);
}
