'use strict';
/** Completion: names of the cells' global scope, or properties of a dotted path before the cursor. */

const KEYWORDS = [
  'async',
  'await',
  'break',
  'case',
  'catch',
  'class',
  'const',
  'continue',
  'default',
  'delete',
  'do',
  'else',
  'export',
  'extends',
  'false',
  'finally',
  'for',
  'function',
  'if',
  'import',
  'in',
  'instanceof',
  'let',
  'new',
  'null',
  'return',
  'static',
  'super',
  'switch',
  'this',
  'throw',
  'true',
  'try',
  'typeof',
  'undefined',
  'var',
  'void',
  'while',
  'yield',
];

function createCompleter({ vm, mainGlobal, mainObjectPrototype, guard }) {
  const { runInThisContext } = vm;
  function propertyNames(value) {
    const names = new Set();
    for (let o = value; o !== null && o !== undefined; o = Object.getPrototypeOf(o)) {
      for (const name of Object.getOwnPropertyNames(o)) names.add(name);
      if (o === mainObjectPrototype) break;
    }
    return [...names];
  }

  /** The answer to a `complete` request (validated by the caller). */
  return function complete(code, cursor) {
    const before = code.slice(0, cursor);
    const match = /((?:[A-Za-z_$][\w$]*\s*\.\s*)*)([A-Za-z_$][\w$]*)?$/.exec(before);
    const prefix = match[2] || '';
    // `x[0].fo` or `f().fo`: the path does not start at a global; nothing to offer.
    if (match[1] && /[.\])'"`]/.test(before.slice(0, match.index).slice(-1))) {
      return { matches: [], start: cursor, end: cursor };
    }
    let names = [];
    try {
      if (match[1]) {
        // Only names and dots (the regex above), evaluated with a deadline: a getter that never
        // returns must not hold the kernel.
        const dotted = match[1]
          .split('.')
          .map((part) => part.trim())
          .filter(Boolean)
          .join('.');
        const value = guard(() => runInThisContext(dotted, { timeout: 500, breakOnSigint: true }));
        names = propertyNames(Object(value));
      } else {
        names = [...propertyNames(mainGlobal), ...KEYWORDS].filter((n) => !n.startsWith('__omp_'));
      }
    } catch {
      names = [];
    }
    const matches = [...new Set(names)]
      .filter((n) => n.startsWith(prefix) && /^[A-Za-z_$][\w$]*$/.test(n))
      .sort();
    return { matches: matches.slice(0, 200), start: cursor - prefix.length, end: cursor };
  };
}

module.exports = { createCompleter };
