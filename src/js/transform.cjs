'use strict';
/**
 * Rewrites a JavaScript cell so that it runs as a script in the kernel's one global scope, with
 * the REPL's semantics where a script's would differ:
 *
 * - Top-level `let`/`const`/`class`/`import` bindings become global properties that a later cell
 *   may declare again. `__omp_bind__.const("c"), c = 1` arms the binding: the runner put a
 *   temporal-dead-zone accessor on `c` before the cell ran (reading it throws "Cannot access 'c'
 *   before initialization"), and the armed assignment turns it into a constant (assigning to it
 *   throws "Assignment to constant variable."). Assignment keeps the name a function gets.
 * - Top-level `var` names are declared by the runner before the cell runs (hoisting), as
 *   configurable properties, so a later cell can make them constants.
 * - A cell with top-level `await` (or `for await`, or a static `import`) runs inside an async
 *   arrow; its `var`s and its function declarations (also those in blocks) are published on the
 *   global object, and its last expression is returned.
 * - `import(x)` anywhere becomes `__omp_import__(x)`, which resolves from the kernel's cwd.
 *
 * Edits never touch the code they keep; positions map back through positions.cjs, so stack
 * traces show the lines and columns of the cell as typed.
 */
const acorn = require('acorn');
const { applyEdits } = require('./positions.cjs');

const IMPORT_FN = '__omp_import__';
const BIND = '__omp_bind__';
/** A pre-declared global: `var __omp_void__ = void (...)` keeps the script's completion value. */
const VOID = '__omp_void__';

const FUNCTION_TYPES = new Set(['FunctionDeclaration', 'FunctionExpression', 'ArrowFunctionExpression']);
const q = JSON.stringify;

/** Calls `visit(node, parent, key)` below `node`; `visit` returning false skips a node's children. */
function walk(node, visit, parent = null, key = null) {
  if (!node || typeof node.type !== 'string') return;
  if (visit(node, parent, key) === false) return;
  for (const k of Object.keys(node)) {
    if (k === 'type' || k === 'start' || k === 'end') continue;
    const value = node[k];
    if (Array.isArray(value)) {
      for (const child of value) if (child && typeof child.type === 'string') walk(child, visit, node, k);
    } else if (value && typeof value.type === 'string') {
      walk(value, visit, node, k);
    }
  }
}

/** The names a binding pattern declares. */
function boundNames(pattern, out = []) {
  switch (pattern.type) {
    case 'Identifier':
      out.push(pattern.name);
      break;
    case 'ObjectPattern':
      for (const prop of pattern.properties)
        boundNames(prop.type === 'RestElement' ? prop.argument : prop.value, out);
      break;
    case 'ArrayPattern':
      for (const element of pattern.elements) if (element) boundNames(element, out);
      break;
    case 'RestElement':
      boundNames(pattern.argument, out);
      break;
    case 'AssignmentPattern':
      boundNames(pattern.left, out);
      break;
    default:
      break;
  }
  return out;
}

const PARSE_OPTIONS = {
  ecmaVersion: 'latest',
  allowAwaitOutsideFunction: true,
  allowHashBang: true,
  allowReturnOutsideFunction: false,
};

/**
 * A cell that starts with `{` and does not end with `;` is an expression when it parses as one
 * (`{a: 1}` is an object, `{ a: 1 }.a` is 1), as in Node's REPL.
 */
function isObjectLiteral(code) {
  if (!/^\s*\{/.test(code) || /;\s*$/.test(code)) return false;
  try {
    const ast = acorn.parse(`(${code})`, { ...PARSE_OPTIONS, sourceType: 'script' });
    return ast.body.length === 1 && ast.body[0].type === 'ExpressionStatement';
  } catch {
    return false;
  }
}

/** Parses as a script, or as a module when the cell has `import` statements. */
function parse(code) {
  try {
    return acorn.parse(code, { ...PARSE_OPTIONS, sourceType: 'script' });
  } catch (scriptError) {
    if (!/\b(import|export)\b/.test(code)) throw scriptError;
    try {
      return acorn.parse(code, { ...PARSE_OPTIONS, sourceType: 'module' });
    } catch {
      throw scriptError;
    }
  }
}

function exportError(code, statement) {
  const loc = acorn.getLineInfo(code, statement.start);
  const err = new SyntaxError(
    `export statements are not supported in a cell (line ${loc.line}); declare the name instead`,
  );
  // Our message: the runner reports it as it is. (Not enumerable: util.inspect would show it.)
  Object.defineProperty(err, 'cellTransform', { value: true });
  throw err;
}

/** True when the cell has top-level `await` or `for await` (outside functions). */
function hasTopLevelAwait(ast) {
  let found = false;
  for (const statement of ast.body) {
    walk(statement, (n) => {
      if (found || FUNCTION_TYPES.has(n.type)) return false;
      if (n.type === 'AwaitExpression' || (n.type === 'ForOfStatement' && n.await)) found = true;
      return !found;
    });
  }
  return found;
}

/**
 * Edits that turn one `let`/`const`/`var` statement into assignments: `prefix` opens it,
 * `arm(kind, names)` precedes each declarator.
 */
function declarationEdits(decl, prefix, armed) {
  const edits = [];
  const names = (d) => boundNames(d.id);
  const arm = (d) => (armed && decl.kind !== 'var' ? `${BIND}.${decl.kind}(${q(names(d))}), ` : '');
  decl.declarations.forEach((d, i) => {
    if (i === 0) edits.push([decl.start, d.start, prefix + arm(d)]);
    else if (arm(d)) edits.push([d.start, d.start, arm(d)]);
    if (!d.init) {
      if (decl.kind === 'var') edits.push([d.start, d.end, '0']);
      else edits.push([d.id.end, d.id.end, ' = undefined']);
    }
  });
  const last = decl.declarations[decl.declarations.length - 1];
  edits.push([last.end, decl.end, prefix ? ');' : '']);
  return edits;
}

/** `import d, { a as b } from "m"` → `var M = await __omp_import__("m"); (bind d and b as consts)`. */
function importEdit(code, statement, index, lexical) {
  const temp = `__omp_module_${index}__`;
  const attributes = (statement.attributes || []).map(
    (a) => `${q(a.key.name ?? a.key.value)}: ${code.slice(a.value.start, a.value.end)}`,
  );
  const options = attributes.length ? `, { with: { ${attributes.join(', ')} } }` : '';
  const source = code.slice(statement.source.start, statement.source.end);
  const names = statement.specifiers.map((s) => s.local.name);
  const parts = statement.specifiers.map((spec) => {
    lexical.add(spec.local.name);
    const from =
      spec.type === 'ImportDefaultSpecifier'
        ? `${temp}.default`
        : spec.type === 'ImportNamespaceSpecifier'
          ? temp
          : `${temp}[${q(spec.imported.name ?? spec.imported.value)}]`;
    return `${spec.local.name} = ${from}`;
  });
  const bind = names.length ? ` ${BIND}.const(${q(names)}), ${parts.join(', ')};` : '';
  return [statement.start, statement.end, `var ${temp} = await ${IMPORT_FN}(${source}${options});${bind}`];
}

/**
 * A syntax error in a cell with `await` as Node's REPL reports it (lib/internal/repl/await.js):
 * acorn's, in the cell wrapped in an async arrow, when it lies after the first `await` (`await x
 * y` is `Unexpected token 'y'`, not V8's "await is only valid in async functions" for the cell
 * as a script). `{message, line, column}`, or null where V8's message for the cell is Node's.
 */
function awaitSyntaxError(src) {
  if (!src.includes('await')) return null;
  const prefix = '(async () => { ';
  try {
    acorn.parse(`${prefix}${src} })()`, { ecmaVersion: 'latest' });
    return null;
  } catch (e) {
    if (typeof e.pos !== 'number' || !e.loc || e.message.startsWith('Unterminated ')) return null;
    const awaitPos = src.indexOf('await');
    const errPos = e.pos - prefix.length;
    if (awaitPos > errPos) return null;
    // (`await` itself misused: V8's message for the cell as typed, as Node's REPL)
    if (errPos === awaitPos + 6 && e.message.includes('Expecting Unicode escape sequence')) return null;
    if (errPos === awaitPos + 7 && e.message.includes('Unexpected token')) return null;
    let message = e.message.replace(/ \([^)]+\)/, '');
    if (message.endsWith('Unexpected token')) message += ` '${src[errPos] ?? src[src.length - 1]}'`;
    const { line, column } = e.loc;
    return { message, line, column: line === 1 ? column - prefix.length : column };
  }
}

/**
 * Returns `{code, map, async, lexical, vars}`: `lexical` are the let/const/class/import names
 * (the runner puts them in their dead zone first), `vars` the names to declare as `var`.
 * Throws acorn's SyntaxError (the caller compiles the original code to report V8's message).
 */
function transformCell(source) {
  // A hashbang line (a script run with `omp-eval run`) would end up inside an async wrapper.
  let code = source.startsWith('#!')
    ? source.replace(/^#![^\n]*/, (line) => ' '.repeat(line.length))
    : source;
  const wrapped = isObjectLiteral(code);
  if (wrapped) code = `(${code})`;
  const ast = parse(code);
  const isAsync = hasTopLevelAwait(ast) || ast.body.some((s) => s.type === 'ImportDeclaration');
  const edits = [];
  const lexical = new Set();
  const vars = new Set();
  const functions = [];
  const strict = ast.body.some((s) => s.directive === 'use strict');

  walk(ast, (node) => {
    if (node.type === 'ImportExpression') edits.push([node.start, node.start + 'import'.length, IMPORT_FN]);
  });

  const open = isAsync ? 'void (' : `var ${VOID} = void (`;
  let imports = 0;
  for (const statement of ast.body) {
    switch (statement.type) {
      case 'VariableDeclaration':
        for (const d of statement.declarations)
          for (const name of boundNames(d.id)) (statement.kind === 'var' ? vars : lexical).add(name);
        edits.push(...declarationEdits(statement, open, true));
        break;
      case 'ClassDeclaration': {
        const name = statement.id.name;
        lexical.add(name);
        edits.push([statement.start, statement.start, `${open}${BIND}.let(${q(name)}), ${name} = `]);
        edits.push([statement.end, statement.end, ');']);
        break;
      }
      case 'FunctionDeclaration':
        if (isAsync) functions.push(statement.id.name);
        break;
      case 'ImportDeclaration':
        edits.push(importEdit(code, statement, ++imports, lexical));
        break;
      case 'ExportNamedDeclaration':
      case 'ExportDefaultDeclaration':
      case 'ExportAllDeclaration':
        exportError(code, statement);
        break;
      default:
        break;
    }
  }

  if (isAsync) {
    edits.push(...nestedEdits(ast, vars, strict ? null : lexical));
    const last = ast.body[ast.body.length - 1];
    if (last && last.type === 'ExpressionStatement' && !last.directive) {
      edits.push([last.start, last.start, 'return { value: (']);
      if (code[last.end - 1] === ';') edits.push([last.end - 1, last.end, ') };']);
      else edits.push([last.end, last.end, ') };']);
    }
  }

  // Zero-width inserts go before an edit starting at the same place.
  edits.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const publish = functions.map((name) => `${BIND}.fn(${q(name)}, ${name}); `).join('');
  const { code: out, map } = applyEdits(code, edits, {
    prefix: isAsync ? `(async () => { ${publish}\n` : '',
    suffix: isAsync ? '\n})()' : '',
    shift: wrapped ? 1 : 0,
  });
  return { code: out, map, async: isAsync, lexical: [...lexical], vars: [...vars] };
}

/**
 * In an async cell, `var` in blocks and loops and function declarations in blocks (sloppy mode)
 * would be local to the wrapper: make them global, as a script would. `lexical` is null in strict
 * mode (block functions stay in their block).
 */
function nestedEdits(ast, vars, lexical) {
  const edits = [];
  const visit = (node, parent, key) => {
    if (FUNCTION_TYPES.has(node.type) && parent !== null) {
      if (
        node.type === 'FunctionDeclaration' &&
        !node.async &&
        !node.generator &&
        lexical &&
        parent.type !== 'Program'
      ) {
        const name = node.id.name;
        if (!lexical.has(name)) {
          const publish = ` ${BIND}.fn(${q(name)}, ${name});`;
          const bare = parent.type === 'IfStatement' || parent.type === 'LabeledStatement';
          if (bare) edits.push([node.start, node.start, '{ ']);
          edits.push([node.end, node.end, bare ? `${publish} }` : publish]);
        }
      }
      return false;
    }
    if (node.type === 'VariableDeclaration' && node.kind === 'var' && parent.type !== 'Program') {
      for (const d of node.declarations) for (const name of boundNames(d.id)) vars.add(name);
      const inLoopHead =
        (parent.type === 'ForStatement' && key === 'init') ||
        ((parent.type === 'ForOfStatement' || parent.type === 'ForInStatement') && key === 'left');
      if (inLoopHead) {
        edits.push([node.start, node.declarations[0].start, '']);
      } else {
        edits.push(...declarationEdits(node, 'void (', false));
      }
    }
    return true;
  };
  for (const statement of ast.body) walk(statement, visit, ast, 'body');
  return edits;
}

module.exports = { transformCell, awaitSyntaxError, IMPORT_FN, BIND, VOID, walk };
