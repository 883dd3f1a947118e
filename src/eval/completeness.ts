/**
 * Whether code typed in a front end is a whole cell (Enter runs it) or needs more lines. The
 * answer is the kernel's (`Session.isComplete`: the `is_complete` request, IPython's rules in the
 * Python kernel, acorn's in the js kernel); the local rules below stand in only while the kernel
 * cannot answer: it is still starting, or busy running a cell (a kernel reads requests between
 * cells), or gone.
 */
import { createRequire } from 'node:module';
import type * as Acorn from 'acorn';
import type { Completeness } from './kernel/types.js';
import type { Language } from './language.js';
import { cellLanguage } from './script.js';

/** The js kernel's own rules (src/js/completeness.cjs) with the host's acorn, loaded on first use. */
interface JsCompleteness {
  isComplete(parse: typeof Acorn.parse, code: string): Completeness;
}
const require = createRequire(import.meta.url);
let jsRules: { rules: JsCompleteness; parse: typeof Acorn.parse } | undefined;

const complete: Completeness = { status: 'complete' };
const incomplete = (indent: string): Completeness => ({ status: 'incomplete', indent });

/**
 * The local rules, as IPython's terminal reads a cell: more input is needed inside an open
 * bracket or triple-quoted string, after a line ending in `:` or `\`, after a decorator, and
 * while the last line of a block is indented (an empty line closes it). js: as the js kernel.
 */
export function localCompleteness(code: string, language: Language = 'py'): Completeness {
  if (!code.trim()) return complete;
  if (language === 'js') {
    jsRules ??= {
      rules: require('../js/completeness.cjs') as JsCompleteness,
      parse: (require('acorn') as typeof Acorn).parse,
    };
    return jsRules.rules.isComplete(jsRules.parse, code);
  }
  const lines = code.split('\n');
  const last = lines.at(-1) ?? '';
  if (openAtEnd(code)) return incomplete(indentOf(last));
  if (last.trim() === '') return complete; // an empty line ends the cell
  if (code.trimStart().startsWith('%%')) return incomplete(''); // a cell magic's body ends with an empty line
  const codePart = (line: string) => line.replace(/#.*$/, '').trimEnd();
  const stripped = codePart(last);
  if (stripped.endsWith(':')) return incomplete(`${indentOf(last)}    `);
  if (stripped.endsWith('\\') || stripped.trimStart().startsWith('@')) return incomplete(indentOf(last));
  // Inside a block (some line opened one), an indented last line means the block goes on.
  const inBlock = lines.some((line) => codePart(line).endsWith(':'));
  return inBlock && /^\s/.test(last) ? incomplete(indentOf(last)) : complete;
}

const indentOf = (line: string) => /^\s*/.exec(line)?.[0] ?? '';

/** Python code that ends inside a bracket or a triple-quoted string. */
function openAtEnd(code: string): boolean {
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
  return depth > 0 || quote?.length === 3;
}

/**
 * The indentation for a new line after `line` (Enter inside a cell, where the kernel is not
 * asked): the same, one level more after a `:`, one level less after a statement that ends its
 * block (`pass`, `return`, `break`, `continue`, `raise`).
 */
export function autoIndent(line: string): string {
  const indent = indentOf(line);
  const code = line.replace(/#.*$/, '').trim();
  if (code.endsWith(':')) return `${indent}    `;
  if (/^(pass|break|continue|return\b.*|raise\b.*)$/.test(code))
    return indent.slice(0, Math.max(0, indent.length - 4));
  return indent;
}

/** Asks a kernel of `language` about `code` (a session's isComplete). */
export type CompletenessOracle = (code: string, language: Language) => Promise<Completeness>;

/**
 * Whether a cell typed in a front end, whose first line may be `%%js` or `%%py`, is whole: a
 * `%%js` / `%%py` body goes on until an empty line, like any cell magic's (%%bash) in IPython, and
 * then the kernel of its language is asked about it; a cell without one is the kernel's to judge.
 * Read line by line (piped input, `lines`), an empty line ends a Python cell as it always did
 * (open brackets too: the kernel reports them).
 */
export async function cellCompleteness(
  text: string,
  fallback: Language,
  ask: CompletenessOracle,
  opts: { lines?: boolean } = {},
): Promise<Completeness> {
  const cell = cellLanguage(text, fallback);
  const magic = cell.code !== text;
  if (magic && !cell.code.trim()) return incomplete(''); // just the magic line: the body follows
  const endsBlank = text.includes('\n') && (text.split('\n').at(-1) ?? '').trim() === '';
  if (magic && !endsBlank) {
    // The body goes on; the kernel says how far its next line is indented.
    const answer = await ask(cell.code, cell.language);
    return incomplete(
      answer.status === 'incomplete' ? (answer.indent ?? '') : indentOf(text.split('\n').at(-1) ?? ''),
    );
  }
  if (opts.lines && endsBlank && cell.language === 'py') return complete;
  if (!cell.code.trim()) return complete;
  return ask(cell.code, cell.language);
}

/** True when Enter should add a line rather than run the cell. */
export const needsMoreLines = (answer: Completeness) => answer.status === 'incomplete';
