'use strict';
/**
 * (Main realm.) Modules for the cells, as Node's REPL offers them: `require` and `import()`
 * resolving from the kernel's working directory (it follows `process.chdir`), `module` (the
 * REPL's `<repl>` module), and the built-in modules as globals loaded on first use (`fs`,
 * `path`, `child_process`, ...), which a cell may assign or declare over.
 */
const fs = require('node:fs');
const path = require('node:path');
const url = require('node:url');
const Module = require('node:module');

module.exports = function createModules({ global, dynamicImport }) {
  const proc = process;
  const { defineProperty, hasOwn } = Object;
  const requireFrom = (dir) => Module.createRequire(path.join(dir, '<omp-eval>'));
  const builtins = new Set(Module.builtinModules);

  function cellRequire(id) {
    return requireFrom(proc.cwd())(id);
  }
  cellRequire.resolve = (id, options) => requireFrom(proc.cwd()).resolve(id, options);
  cellRequire.cache = Module._cache;

  /** An ESM-only package's entry (its "exports" have no require condition): node_modules walk. */
  function packageEntry(spec) {
    const parts = spec.split('/');
    const name = spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
    const sub = parts.slice(spec.startsWith('@') ? 2 : 1).join('/');
    for (let dir = proc.cwd(); ; dir = path.dirname(dir)) {
      const pkgDir = path.join(dir, 'node_modules', name);
      try {
        const pkg = JSON.parse(fs.readFileSync(path.join(pkgDir, 'package.json'), 'utf8'));
        let target = sub ? `./${sub}` : pkg.module || pkg.main || 'index.js';
        const exp = pkg.exports;
        const entry =
          exp && (typeof exp === 'string' || exp.import || exp.default ? exp : exp[sub ? `./${sub}` : '.']);
        const pick = (e) =>
          typeof e === 'string' ? e : e && (pick(e.import) || pick(e.node) || pick(e.default));
        if (entry) target = pick(entry) || target;
        return path.join(pkgDir, target);
      } catch {
        // not here
      }
      if (path.dirname(dir) === dir) return undefined;
    }
  }

  async function load(target, options) {
    try {
      return await dynamicImport(target, options);
    } catch (err) {
      // Node names the importing file: that is the runner, not the cell.
      if (err && typeof err.message === 'string')
        err.message = err.message.replace(/ imported from \S+$/, '');
      if (err && typeof err.stack === 'string') err.stack = err.stack.replace(/ imported from \S+/, '');
      throw err;
    }
  }

  /** `import(x)` in a cell (the transform renames it): resolved from the working directory. */
  async function cellImport(specifier, options) {
    const spec = String(specifier);
    if (spec.startsWith('.') || path.isAbsolute(spec)) {
      return load(url.pathToFileURL(path.resolve(proc.cwd(), spec)).href, options);
    }
    if (/^[a-z][a-z0-9+.-]*:/i.test(spec) || builtins.has(spec)) return load(spec, options);
    let resolved;
    try {
      resolved = requireFrom(proc.cwd()).resolve(spec);
    } catch (err) {
      resolved = packageEntry(spec);
      if (!resolved) {
        const e = new Error(`Cannot find package '${spec}' from ${proc.cwd()}`);
        e.code = err.code || 'ERR_MODULE_NOT_FOUND';
        throw e;
      }
    }
    return load(url.pathToFileURL(resolved).href, options);
  }

  /** The REPL's module: `module.exports` works, `module.paths` follow the working directory. */
  const replModule = new Module('<repl>');
  replModule.filename = null;
  defineProperty(replModule, 'paths', {
    get: () => Module._nodeModulePaths(proc.cwd()),
    set: () => {},
    configurable: true,
    enumerable: true,
  });

  /** Built-in modules as globals, loaded on first use; assigning one replaces it (as in the REPL). */
  function addBuiltinGlobals() {
    for (const name of Module.builtinModules) {
      if (name.startsWith('_') || name.includes('/') || hasOwn(global, name)) continue;
      const setReal = (value) => {
        delete global[name];
        global[name] = value;
      };
      defineProperty(global, name, {
        get: () => {
          const lib = cellRequire(name);
          delete global[name];
          defineProperty(global, name, {
            get: () => lib,
            set: setReal,
            configurable: true,
            enumerable: false,
          });
          return lib;
        },
        set: setReal,
        configurable: true,
        enumerable: false,
      });
    }
  }

  return { cellRequire, cellImport, replModule, addBuiltinGlobals };
};
