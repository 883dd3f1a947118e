'use strict';
/**
 * Whether JavaScript typed so far is a whole cell, as the `is_complete` request answers it (the
 * Python kernel answers the same request with IPython's rules): `complete` (Enter runs it),
 * `incomplete` (the code ends inside something still open: a bracket, a template literal, a block
 * comment; with the next line's indentation) or `invalid` (a syntax error more lines will not
 * fix: run it and let the kernel say what is wrong). Blank lines inside a function or an object
 * do not end the cell (as in Node's REPL), but two of them run it whatever is open, so that a
 * typo such as `foo(` cannot hold the prompt for ever.
 *
 * The runner calls it with its own acorn; the host uses the same file (with the host's acorn)
 * while the kernel cannot answer.
 */
const OPTIONS = { ecmaVersion: 'latest', allowAwaitOutsideFunction: true, allowHashBang: true };

/** The indentation for the line after `code`'s last: the same, two spaces more after an opener. */
function nextIndent(code) {
  const lines = code.split('\n');
  const last = lines[lines.length - 1];
  const indent = /^[ \t]*/.exec(last)[0];
  return /[{([]\s*$/.test(last) ? `${indent}  ` : indent;
}

/** Does the parser stop at the very end (more text could fix it)? */
function failsAtEnd(parse, source, sourceType) {
  try {
    parse(source, { ...OPTIONS, sourceType });
    return false;
  } catch (err) {
    if (/Unterminated (template|comment)/.test(err.message ?? '')) return true;
    return err.pos !== undefined && err.pos >= source.trimEnd().length;
  }
}

function parses(parse, source, sourceType) {
  try {
    parse(source, { ...OPTIONS, sourceType });
    return true;
  } catch {
    return false;
  }
}

/** `{status, indent?}` for `code`; `parse` is acorn's. */
function isComplete(parse, code) {
  if (!code.trim()) return { status: 'complete' };
  if (parses(parse, code, 'script')) return { status: 'complete' };
  // import declarations: a module (the kernel rewrites them).
  if (/\bimport\b/.test(code) && parses(parse, code, 'module')) return { status: 'complete' };
  const open =
    failsAtEnd(parse, code, 'script') && (!/\bimport\b/.test(code) || failsAtEnd(parse, code, 'module'));
  if (!open || /\n[ \t]*\n[ \t]*$/.test(code)) return { status: 'invalid' };
  return { status: 'incomplete', indent: nextIndent(code) };
}

module.exports = { isComplete };
