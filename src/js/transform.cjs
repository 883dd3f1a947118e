'use strict';
/**
 * Rewrites a JavaScript cell so that it runs as a script in the kernel's one global scope:
 *
 * - Top-level `let`/`const`/`var`/`class` declarations become assignments to global `var`s, so
 *   later cells see them and a cell can run again (as in Node's REPL, redeclaring is allowed).
 * - A cell with top-level `await` (or `for await`) runs inside an async arrow function; its
 *   declarations still land on the global object, and its last expression is returned.
 * - `import(x)` anywhere becomes `__omp_import__(x)`, which resolves from the kernel's cwd.
 * - Static `import ... from '...'` statements become awaited dynamic imports.
 *
 * Line numbers are kept: edits never add or remove a newline inside the cell's code, and the one
 * line put before an async cell is taken back with the script's `lineOffset`.
 */
const acorn = require('acorn');

const IMPORT_FN = '__omp_import__';
const GLOBAL_PARAM = '__omp_global__';

const FUNCTION_TYPES = new Set(['FunctionDeclaration', 'FunctionExpression', 'ArrowFunctionExpression']);

/** Calls `visit` on every node below `node`; `visit` returning false skips a node's children. */
function walk(node, visit) {
  if (!node || typeof node.type !== 'string') return;
  if (visit(node) === false) return;
  for (const key of Object.keys(node)) {
    if (key === 'type' || key === 'start' || key === 'end') continue;
    const value = node[key];
    if (Array.isArray(value)) {
      for (const child of value) if (child && typeof child.type === 'string') walk(child, visit);
    } else if (value && typeof value.type === 'string') {
      walk(value, visit);
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

/** `{a: 1}` alone is an object, not a block with a label (as in Node's REPL): parenthesised. */
function objectLiteral(code) {
  if (!/^\s*\{/.test(code) || !/\}\s*$/.test(code)) return undefined;
  try {
    const wrapped = `(${code})`;
    const ast = acorn.parse(wrapped, { ...PARSE_OPTIONS, sourceType: 'script' });
    return ast.body.length === 1 && ast.body[0].type === 'ExpressionStatement' ? wrapped : undefined;
  } catch {
    return undefined;
  }
}

/** Parses as a script, or as a module when the cell has `import` statements. */
function parse(code) {
  try {
    return { ast: acorn.parse(code, { ...PARSE_OPTIONS, sourceType: 'script' }), module: false };
  } catch (scriptError) {
    if (!/\b(import|export)\b/.test(code)) throw scriptError;
    try {
      return { ast: acorn.parse(code, { ...PARSE_OPTIONS, sourceType: 'module' }), module: true };
    } catch {
      throw scriptError;
    }
  }
}

/**
 * Returns `{code, lineOffset, async, names}` for the cell, or throws acorn's SyntaxError (the caller
 * compiles the original code to report V8's own message).
 */
function transformCell(source) {
  // A hashbang line (a script run with `omp-eval run`) would end up inside an async wrapper.
  let code = source.startsWith('#!')
    ? source.replace(/^#![^\n]*/, (line) => ' '.repeat(line.length))
    : source;
  code = objectLiteral(code) ?? code;
  const { ast } = parse(code);
  const edits = []; // [start, end, text], never overlapping
  const hoisted = new Set();
  let isAsync = false;

  // Top-level await, and every import() at any depth.
  walk(ast, (node) => {
    if (node.type === 'ImportExpression') {
      edits.push([node.start, node.start + 'import'.length, IMPORT_FN]);
    }
    return true;
  });
  const findAwait = (node) => {
    walk(node, (n) => {
      if (FUNCTION_TYPES.has(n.type)) return false;
      if (n.type === 'AwaitExpression' || (n.type === 'ForOfStatement' && n.await)) isAsync = true;
      return !isAsync;
    });
  };
  for (const statement of ast.body) findAwait(statement);

  const src = (node) => code.slice(node.start, node.end);
  // Edits inside a replaced range (an import() in an initialiser) are applied to that range first.
  const rewritten = (node) => {
    let text = '';
    let at = node.start;
    for (const [start, end, replacement] of [...edits].sort((a, b) => a[0] - b[0])) {
      if (start < node.start || end > node.end) continue;
      text += code.slice(at, start) + replacement;
      at = end;
    }
    return text + code.slice(at, node.end);
  };
  const replace = (node, text) => {
    for (let i = edits.length - 1; i >= 0; i--) {
      const [start, end] = edits[i];
      if (start >= node.start && end <= node.end) edits.splice(i, 1);
    }
    edits.push([node.start, node.end, text]);
  };

  let imports = 0;
  const functions = [];
  for (const statement of ast.body) {
    switch (statement.type) {
      case 'VariableDeclaration': {
        const parts = [];
        for (const declarator of statement.declarations) {
          for (const name of boundNames(declarator.id)) hoisted.add(name);
          if (declarator.init) parts.push(`(${rewritten(declarator.id)} = ${rewritten(declarator.init)})`);
          else if (statement.kind !== 'var') parts.push(`(${src(declarator.id)} = undefined)`);
        }
        replace(statement, parts.length ? `void (${parts.join(', ')});` : ';');
        break;
      }
      case 'ClassDeclaration':
        hoisted.add(statement.id.name);
        replace(statement, `void (${statement.id.name} = ${rewritten(statement)});`);
        break;
      case 'FunctionDeclaration':
        if (statement.id) functions.push(statement.id.name);
        break;
      case 'ImportDeclaration': {
        isAsync = true;
        const temp = `__omp_module_${++imports}__`;
        const attributes = (statement.attributes || []).map(
          (a) => `${JSON.stringify(a.key.name ?? a.key.value)}: ${src(a.value)}`,
        );
        const options = attributes.length ? `, { with: { ${attributes.join(', ')} } }` : '';
        const parts = [`${temp} = await ${IMPORT_FN}(${src(statement.source)}${options})`];
        for (const spec of statement.specifiers) {
          hoisted.add(spec.local.name);
          const from =
            spec.type === 'ImportDefaultSpecifier'
              ? `${temp}.default`
              : spec.type === 'ImportNamespaceSpecifier'
                ? temp
                : `${temp}[${JSON.stringify(spec.imported.name ?? spec.imported.value)}]`;
          parts.push(`${spec.local.name} = ${from}`);
        }
        replace(statement, `var ${temp}; ${parts.join('; ')};`);
        break;
      }
      case 'ExportNamedDeclaration':
      case 'ExportDefaultDeclaration':
      case 'ExportAllDeclaration': {
        const loc = acorn.getLineInfo(code, statement.start);
        const err = new SyntaxError(
          `export statements are not supported in a cell (line ${loc.line}); declare the name instead`,
        );
        err.loc = loc;
        err.pos = statement.start;
        err.cellTransform = true; // our message: the runner reports it as it is
        throw err;
      }
      default:
        break;
    }
  }

  // In an async cell, `var` in blocks and loops would be local to the wrapper: make it global too.
  if (isAsync) {
    const visit = (node) => {
      for (const key of Object.keys(node)) {
        const value = node[key];
        const children = Array.isArray(value) ? value : [value];
        for (const child of children) {
          if (!child || typeof child.type !== 'string' || FUNCTION_TYPES.has(child.type)) continue;
          if (child.type === 'VariableDeclaration' && child.kind === 'var') {
            for (const declarator of child.declarations)
              for (const name of boundNames(declarator.id)) hoisted.add(name);
            const parts = child.declarations.map((d) =>
              d.init ? `(${rewritten(d.id)} = ${rewritten(d.init)})` : rewritten(d.id),
            );
            const inFor = node.type === 'ForStatement' && key === 'init';
            const inForOf =
              (node.type === 'ForOfStatement' || node.type === 'ForInStatement') && key === 'left';
            const withInit = child.declarations.filter((d) => d.init);
            if (inForOf) replace(child, rewritten(child.declarations[0].id));
            else if (inFor) replace(child, parts.join(', '));
            else
              replace(
                child,
                withInit.length
                  ? `void (${withInit.map((d) => `(${rewritten(d.id)} = ${rewritten(d.init)})`).join(', ')});`
                  : ';',
              );
            continue;
          }
          visit(child);
        }
      }
    };
    for (const statement of ast.body) if (statement.type !== 'VariableDeclaration') visit(statement);
  }

  let tail = '';
  const last = ast.body[ast.body.length - 1];
  if (isAsync && last && last.type === 'ExpressionStatement' && !last.directive) {
    replace(last, `return { value: (${rewritten(last.expression)}) };`);
  }
  // A function declared in an async cell is local to the wrapper: publish it.
  if (isAsync && functions.length) {
    tail = functions.map((name) => `${GLOBAL_PARAM}.${name} = ${name};`).join(' ');
  }

  edits.sort((a, b) => a[0] - b[0]);
  let body = '';
  let at = 0;
  for (const [start, end, text] of edits) {
    body += code.slice(at, start) + text;
    at = end;
  }
  body += code.slice(at);

  const names = [...hoisted];
  const declare = names.length ? `var ${names.join(', ')};` : '';
  if (!isAsync) {
    // `var` hoists: declaring at the end keeps line 1 and the completion value as they are.
    return { code: declare ? `${body}\n;${declare}` : body, lineOffset: 0, async: false, names };
  }
  const publish = tail ? `${tail} ` : '';
  // Function declarations hoist within the wrapper, so they can be published before the body runs.
  return {
    code: `${declare}(async (${GLOBAL_PARAM}) => { ${publish}\n${body}\n})(globalThis)`,
    lineOffset: -1,
    async: true,
    names,
  };
}

module.exports = { transformCell, IMPORT_FN, walk };
