'use strict';
/**
 * (Main realm.) What cells see of the kernel: display(), input(), require/import/module, the
 * built-in modules, `_` and `_error` as in Node's REPL, process.exit() ending only the cell, the
 * binding helpers the transform calls, and the prelude's helpers. The runner (another realm)
 * calls `cellHooks`; these functions call back only through `caps`, functions that take and
 * return plain values.
 */
const util = require('node:util');
const caps = require('omp:caps');
const createBindings = require('./bindings.cjs');
const createModules = require('./modules.cjs');
const createPrelude = require('./prelude.cjs');
const createVariables = require('./variables.cjs');

const global = globalThis;
const proc = process;
// Taken now: a cell may replace Object.keys and the like (its realm's), not break the kernel.
const { defineProperty, getOwnPropertyDescriptor, getPrototypeOf, keys, entries } = Object;
const ObjectPrototype = Object.prototype;
const { isArray } = Array;
const { isBuffer } = Buffer;
const { apply } = Reflect;
const resolved = Promise.resolve.bind(Promise);
const { inspect, types } = util;
const JUPYTER_DISPLAY = Symbol.for('Jupyter.display');
const ANSI_MIME = 'application/x-omp-ansi';
const inspectOptions = (colors) => ({ colors, depth: 4, maxArrayLength: 100, showProxy: true });

const defineGlobal = (name, value) =>
  defineProperty(global, name, { value, writable: true, configurable: true, enumerable: false });

// ---------------------------------------------------------------------------------------------
// display()

function checkBundle(bundle) {
  if (!bundle || typeof bundle !== 'object' || isArray(bundle)) {
    throw new TypeError('display(bundle, {raw: true}) needs an object of MIME type → data');
  }
  const out = {};
  for (const [mime, data] of entries(bundle)) {
    if (!mime.includes('/')) throw new TypeError(`display(..., {raw: true}): "${mime}" is not a MIME type`);
    out[mime] = isBuffer(data) ? data.toString('base64') : data;
  }
  return out;
}

/** The MIME bundle of a value: its own (Symbol.for('Jupyter.display')), else util.inspect. */
function bundleOf(value) {
  if (value !== null && (typeof value === 'object' || typeof value === 'function') && !types.isProxy(value)) {
    const own = value[JUPYTER_DISPLAY];
    if (typeof own === 'function') {
      const bundle = own.call(value);
      if (bundle && typeof bundle === 'object') return checkBundle(bundle);
    }
  }
  return {
    'text/plain': inspect(value, inspectOptions(false)),
    [ANSI_MIME]: inspect(value, inspectOptions(true)),
  };
}

const OPTION_KEYS = new Set(['raw', 'displayId', 'display_id', 'update']);
const isOptions = (v) =>
  v !== null &&
  typeof v === 'object' &&
  getPrototypeOf(v) === ObjectPrototype &&
  keys(v).length > 0 &&
  keys(v).every((k) => OPTION_KEYS.has(k));

/**
 * display(a, b, ...) shows each value as a cell output; a last argument of options: {raw: true}
 * sends MIME bundles as they are ({"text/markdown": "# hi"}, {"image/png": <base64 or Buffer>}),
 * {displayId, update} replaces an earlier output.
 */
function display(...values) {
  const options = values.length > 1 && isOptions(values[values.length - 1]) ? values.pop() : {};
  const displayId = options.displayId ?? options.display_id;
  for (const value of values) {
    const bundle = options.raw ? checkBundle(value) : bundleOf(value);
    caps.display(bundle, displayId === undefined ? undefined : String(displayId), options.update === true);
  }
}

// ---------------------------------------------------------------------------------------------
// input() and readline's question()

/** Raised by input() in a cell that was run without stdin (the name Jupyter uses). */
class StdinNotImplementedError extends Error {
  constructor() {
    super('input() is not available: this cell was run without stdin. Pass the data in the code instead.');
    this.name = 'StdinNotImplementedError';
  }
}

/** Raised by input() at the end of the host's input, or when the host closed the request channel. */
class EOFError extends Error {
  constructor(message = 'the host closed the request channel') {
    super(message);
    this.name = 'EOFError';
  }
}

function input(prompt = '', options = {}) {
  return caps.input(String(prompt), options?.password === true);
}

function patchQuestion(Interface, promises) {
  const original = Interface?.prototype?.question;
  if (typeof original !== 'function') return;
  // Questions on the kernel's stdin (/dev/null) are asked of the host, like input().
  const question = function question(query, ...rest) {
    if (this.input !== proc.stdin) return original.call(this, query, ...rest);
    const callback = rest.find((arg) => typeof arg === 'function');
    const answer = input(query);
    if (promises) return resolved(answer);
    if (callback) proc.nextTick(callback, answer);
  };
  defineProperty(Interface.prototype, 'question', { value: question, writable: true, configurable: true });
}

// ---------------------------------------------------------------------------------------------
// Output order: what a cell printed is written before a child process or fs.writeSync(1, ...)
// writes to fd 1 or 2 directly (console output waits in the kernel's queue for a few ms).

function flushFirst(module, names, applies = () => true) {
  for (const name of names) {
    const original = module[name];
    if (typeof original !== 'function') continue;
    const wrapped = {
      [name](...args) {
        if (applies(args)) caps.flush();
        return apply(original, this, args);
      },
    }[name];
    defineProperty(module, name, { value: wrapped, writable: true, configurable: true, enumerable: true });
  }
}

function flushBeforeRawWrites() {
  const childProcess = require('node:child_process');
  flushFirst(childProcess, ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork']);
  const fs = require('node:fs');
  flushFirst(fs, ['writeSync', 'write'], ([fd]) => fd === 1 || fd === 2);
  // A cell that ends the kernel's process itself leaves nothing it printed in the queue.
  flushFirst(proc, ['abort', 'reallyExit']);
  flushFirst(proc, ['kill'], ([pid]) => Number(pid) === proc.pid || Number(pid) === 0);
}

// ---------------------------------------------------------------------------------------------
// process.exit(), `_` and `_error`

/** process.exit() in a cell ends the cell, as sys.exit() does in Python; the kernel lives on. */
class ProcessExit extends Error {
  constructor(code) {
    super(`process.exit(${code ?? ''}) ended the cell; the kernel keeps running (restart it to start over)`);
    this.name = 'ProcessExit';
    this.code = code;
  }
}

/** `_` (the last result) and `_error` (the last error), until a cell assigns them itself. */
function lastValue(name) {
  const state = { value: undefined, assigned: false };
  const get = () => state.value;
  const set = (value) => {
    state.value = value;
    if (!state.assigned) {
      state.assigned = true;
      proc.stdout.write(`Expression assignment to ${name} now disabled.\n`);
    }
  };
  defineProperty(global, name, { get, set, configurable: true, enumerable: false });
  return (value) => {
    if (!state.assigned && getOwnPropertyDescriptor(global, name)?.get === get) state.value = value;
  };
}

// ---------------------------------------------------------------------------------------------
// Wiring

const bindings = createBindings(global);
const modules = createModules({ global, dynamicImport: caps.dynamicImport });
const prelude = createPrelude({ display, caps });
const variables = createVariables({ global, inspect });
const internals = {
  __omp_bind__: bindings.api,
  __omp_import__: modules.cellImport,
  __omp_void__: undefined,
  /** The runner's `variables` request, in scripts it can interrupt and time out. */
  __omp_variables__: variables.names,
  __omp_variable__: variables.describeOne,
};

function install(drain, pending) {
  internals.__omp_drain__ = drain;
  internals.__omp_pending__ = pending;
  defineGlobal('display', display);
  defineGlobal('input', input);
  defineGlobal('require', modules.cellRequire);
  defineGlobal('module', modules.replModule);
  for (const [name, value] of entries(prelude.globals)) defineGlobal(name, value);
  modules.addBuiltinGlobals();
  proc.exit = function exit(code) {
    throw new ProcessExit(code ?? proc.exitCode);
  };
  cellHooks.keepResult = lastValue('_');
  cellHooks.keepError = lastValue('_error');
  variables.snapshot();
}

let patched = false;
/** After start, before the first cell: what loads modules the init does not need. */
function installLate() {
  if (patched) return;
  patched = true;
  flushBeforeRawWrites();
  patchQuestion(require('node:readline').Interface, false);
  patchQuestion(require('node:readline/promises').Interface, true);
}

/** What the runner calls. */
const cellHooks = {
  install,
  installLate,
  bundleOf,
  /** Before every cell: the helpers the transformed code calls are there, whatever a cell did. */
  prepare() {
    for (const name of keys(internals)) {
      const d = getOwnPropertyDescriptor(global, name);
      if (!d || d.value !== internals[name] || d.enumerable) defineGlobal(name, internals[name]);
    }
  },
  enter: bindings.enter,
  leave: bindings.leave,
  isProcessExit: (err) => err instanceof ProcessExit,
  /** Errors the runner throws into cells, of this realm. */
  stdinError: () => new StdinNotImplementedError(),
  eofError: (message) => new EOFError(message),
  keepResult: () => {},
  keepError: () => {},
};

module.exports = cellHooks;
