'use strict';
/**
 * The JavaScript kernel: `node runner.cjs`, speaking the same NDJSON frames as runner.py.
 * Requests arrive on fd 4, frames leave on fd 3 (queued in a shared ring and written by a pump
 * thread), the bridge for agent() and completion() is fd 5. fd 1 and fd 2 stay ordinary pipes:
 * what child processes and native code write there reaches the host as the running cell's output.
 *
 * Cells run in this (the main) context, in one global scope. The runner itself (serve.cjs and
 * its modules, acorn and the transform) is loaded into a vm context of its own, so that no cell
 * can reach or break it; what cells see of the kernel (globals.cjs and its modules) is compiled
 * here and talks to the runner only through functions that pass plain values.
 *
 * This file only captures what it needs before any cell can change it and loads the rest; the
 * pump thread starts once the kernel is ready.
 */
const main = {
  Object,
  Array,
  Error,
  TypeError,
  RangeError,
  SyntaxError,
  ReferenceError,
  EvalError,
  URIError,
  AggregateError,
  Promise,
  PromiseThen: Promise.prototype.then,
};
const mainGlobal = globalThis;
/**
 * Globals the cells' side of the kernel (globals.cjs and its modules) uses, as they are now: its
 * files see these as parameters, so `const JSON = ...` in a cell does not break display().
 */
const INTRINSIC_NAMES = [
  'Object',
  'Array',
  'JSON',
  'String',
  'Number',
  'Boolean',
  'Symbol',
  'Reflect',
  'Promise',
  'Error',
  'TypeError',
  'ReferenceError',
  'SyntaxError',
  'Map',
  'Set',
  'WeakMap',
  'WeakSet',
  'Math',
  'RegExp',
  'process',
  'Buffer',
];
const intrinsics = INTRINSIC_NAMES.map((name) => globalThis[name]);
const proc = process;
const nodePrepare = Error.prepareStackTrace;
const exit = process.exit.bind(process);
const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');

/**
 * Descriptors the host inherited without close-on-exec (a shell's `exec 251<file`) reach this
 * process too: closed before any cell runs, so neither cells nor their children hold them. Ours
 * are 0-5; everything Node opens itself is close-on-exec. (Linux: /proc tells the flag.)
 */
function closeInheritedDescriptors() {
  const O_CLOEXEC = 0o2000000;
  let fds;
  try {
    fds = fs.readdirSync('/proc/self/fd');
  } catch {
    return;
  }
  for (const name of fds) {
    const fd = Number(name);
    if (!(fd > 5)) continue;
    try {
      const flags = /^flags:\s*([0-7]+)/m.exec(fs.readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8'));
      if (flags && (Number.parseInt(flags[1], 8) & O_CLOEXEC) === 0) fs.closeSync(fd);
    } catch {
      // gone already (the directory's own descriptor)
    }
  }
}
closeInheritedDescriptors();

const JS_DIR = __dirname;
const SHIM_FILE = path.join(JS_DIR, 'membrane.cjs');
/** Where the runner's code lives (acorn's file is added when it is loaded). */
const runnerPaths = [`${JS_DIR}${path.sep}`, 'omp-eval:'];
const isRunnerFile = (file) => typeof file === 'string' && runnerPaths.some((p) => file.startsWith(p));

/**
 * Loads a CommonJS file into `context` (null: this one, where the file's globals are the
 * intrinsics as they were at start), with its own `require`.
 */
function loader(context, specials) {
  const cache = new Map();
  const params = [
    'exports',
    'require',
    'module',
    '__filename',
    '__dirname',
    ...(context ? [] : INTRINSIC_NAMES),
  ];
  function load(file) {
    const cached = cache.get(file);
    if (cached) return cached.exports;
    const source = fs.readFileSync(file, 'utf8');
    // compileFunction, as Node's loader: a wrapper in parentheses would be compiled eagerly.
    const fn = vm.compileFunction(source, params, {
      filename: file,
      ...(context ? { parsingContext: context } : {}),
    });
    const module = context ? vm.runInContext('({ exports: {} })', context) : { exports: {} };
    cache.set(file, module);
    const localRequire = (id) => {
      if (Object.hasOwn(specials, id)) return specials[id];
      if (id.startsWith('./')) return load(path.join(path.dirname(file), id));
      if (id === 'acorn') {
        const acorn = require.resolve('acorn');
        if (!runnerPaths.includes(acorn)) runnerPaths.push(acorn);
        return load(acorn);
      }
      return require(id);
    };
    fn.call(
      module.exports,
      module.exports,
      localRequire,
      module,
      file,
      path.dirname(file),
      ...(context ? [] : intrinsics),
    );
    return module.exports;
  }
  return load;
}

// Nothing of the runner in the cells' module cache (this file exports nothing anyway).
delete require.cache[__filename];

const context = vm.createContext(vm.constants?.DONT_CONTEXTIFY ?? {});
const loadRunner = loader(context, {});
const ring = loadRunner(path.join(JS_DIR, 'ring.cjs'));
const sab = ring.createRing();
/** The pump thread: started once the kernel is ready (until then the main thread writes). */
const pumpExitListeners = [];
function startPump() {
  const { Worker } = require('node:worker_threads');
  const pump = new Worker(path.join(JS_DIR, 'pump.cjs'), { workerData: { sab, fd: 3 } });
  pump.unref();
  pump.on('error', () => {});
  pump.on('exit', () => {
    for (const listener of pumpExitListeners) listener();
  });
}

loadRunner(path.join(JS_DIR, 'serve.cjs'))({
  main,
  mainGlobal,
  proc,
  nodePrepare,
  sab,
  context,
  shimFile: SHIM_FILE,
  runnerPaths,
  isRunnerFile,
  require,
  exit,
  startPump,
  onPumpExit: (listener) => pumpExitListeners.push(listener),
  dynamicImport: (specifier, options) =>
    options === undefined ? import(specifier) : import(specifier, options),
  loadMain: (file, caps) => loader(null, { 'omp:caps': caps })(path.join(JS_DIR, file)),
});
