'use strict';
/**
 * The JavaScript kernel: a Node process that runs cells in one global scope and speaks the same
 * NDJSON frames as runner.py. Requests arrive on fd 4, frames leave on fd 3 (written
 * synchronously, so a cell that prints blocks while the host is not reading). fd 1 and fd 2 stay
 * ordinary pipes: what child processes and native code write there reaches the host as raw
 * output of the running cell.
 *
 * Interrupts: SIGINT stops synchronous code of a cell (vm's breakOnSigint) and abandons a pending
 * `await` (the cell ends with an Interrupted error, the kernel keeps its state). Code spinning in
 * a callback cannot be stopped from inside; the host's escalation kills the kernel then.
 */
// The runner's own references to globals: cells share the global scope, and `const JSON = ...`
// or `let process = ...` in a cell must not break the kernel.
const proc = process;
const { stringify, parse: parseJson } = JSON;
const { Buffer } = require('node:buffer');
const PromiseCtor = Promise;
const { defineProperty, entries, getOwnPropertyNames, getPrototypeOf } = Object;
const ObjectCtor = Object;
const { isArray } = Array;
const Str = String;
const SetCtor = Set;
const JUPYTER_DISPLAY = Symbol.for('Jupyter.display');
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');
const url = require('node:url');
const util = require('node:util');
const vm = require('node:vm');
const { createRequire, builtinModules } = require('node:module');
const { StringDecoder } = require('node:string_decoder');
const { transformCell, IMPORT_FN } = require('./transform.cjs');

const FRAMES_FD = 3;
const REQUESTS_FD = 4;
const ANSI_MIME = 'application/x-omp-ansi';
const RUNNER_FILES = [__filename, path.join(__dirname, 'transform.cjs')];
/** Makes the host's end-of-cell markers on fd 1 and 2 unguessable for output. */
const SYNC_TOKEN = proc.env.OMP_JS_SYNC_TOKEN || '';
delete proc.env.OMP_JS_SYNC_TOKEN;

// ---------------------------------------------------------------------------------------------
// Frames out

function writeAll(text) {
  let buffer = Buffer.from(text, 'utf8');
  while (buffer.length) {
    let written;
    try {
      written = fs.writeSync(FRAMES_FD, buffer);
    } catch (err) {
      if (err.code === 'EAGAIN') {
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
        continue;
      }
      // The host is gone: nobody reads our frames any more.
      reallyExit(0);
    }
    buffer = buffer.subarray(written);
  }
}

/** Frames are written whole even when SIGINT's handler would run in between (it cannot: JS is one thread). */
function send(frame) {
  writeAll(`${stringify(frame)}\n`);
}

/**
 * The cell now running: its id is on every frame written meanwhile, also by callbacks of earlier
 * cells (an AsyncLocalStorage could tell them apart, but it makes util.inspect show every
 * promise's async-id symbols).
 */
let current = null;
let executionCount = 0;

const currentId = () => (current ? current.id : null);

/**
 * Built-ins the runner (and acorn, which shares the global scope) cannot work without. A cell
 * that declares one of these names gets it back after the cell, with a note.
 */
const INTRINSICS = [
  'Object',
  'Array',
  'Function',
  'String',
  'Number',
  'Boolean',
  'Symbol',
  'BigInt',
  'JSON',
  'Math',
  'Reflect',
  'Promise',
  'Error',
  'SyntaxError',
  'TypeError',
  'RangeError',
  'Set',
  'Map',
  'WeakMap',
  'RegExp',
  'Date',
  'Proxy',
  'Buffer',
  'process',
  'globalThis',
  'Uint8Array',
  'ArrayBuffer',
];
const intrinsicValues = INTRINSICS.map((name) => globalThis[name]);

function restoreIntrinsics(id) {
  const restored = [];
  INTRINSICS.forEach((name, i) => {
    if (globalThis[name] !== intrinsicValues[i]) {
      defineGlobal(name, intrinsicValues[i]);
      restored.push(name);
    }
  });
  if (restored.length) {
    const names = restored.join(', ');
    const what = restored.length > 1 ? 'are built-ins' : 'is a built-in';
    send({
      type: 'stderr',
      id,
      data: `omp-eval: ${names} ${what} the kernel needs; the cell's assignment was undone (use another name)\n`,
    });
  }
}

const reallyExit = proc.exit.bind(proc);

// ---------------------------------------------------------------------------------------------
// Output: process.stdout/stderr writes (and so console.*) become frames

function captureStream(stream, name) {
  const decoder = new StringDecoder('utf8');
  stream.write = function write(chunk, encoding, callback) {
    if (typeof encoding === 'function') {
      callback = encoding;
      encoding = undefined;
    }
    let text;
    if (typeof chunk === 'string') {
      text =
        encoding && encoding !== 'utf8' && encoding !== 'utf-8'
          ? decoder.write(Buffer.from(chunk, encoding))
          : chunk;
    } else {
      text = decoder.write(
        Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength),
      );
    }
    if (text) send({ type: name, id: currentId(), data: text });
    if (typeof callback === 'function') proc.nextTick(callback);
    return true;
  };
  // Colours and widths as for a pipe: results are coloured by the host's choice, not by console.
  stream.isTTY = false;
}
captureStream(proc.stdout, 'stdout');
captureStream(proc.stderr, 'stderr');

// console.trace() prints the cell's frames, not the runner's.
console.trace = function trace(...args) {
  const holder = {};
  Error.captureStackTrace(holder, trace);
  const frames = withoutRunnerFrames(holder.stack.split('\n').slice(1).join('\n'));
  proc.stderr.write(`Trace${args.length ? `: ${util.format(...args)}` : ''}\n${frames}\n`);
};

// ---------------------------------------------------------------------------------------------
// Rich output

/** Drops the stack frames of the runner and of Node itself from inspected text (errors in it). */
function withoutRunnerFrames(text) {
  const out = [];
  for (const line of text.split('\n')) {
    // biome-ignore lint/suspicious/noControlCharactersInRegex: colour codes around a frame
    const plain = line.replace(/\u001b\[\d+m/g, '');
    if (!/^\s+at /.test(plain) || !isRunnerFrame(plain)) out.push(line);
    // inspect opens an error's properties on its last frame's line: keep the brace.
    else if (plain.endsWith(' {') && out.length) out[out.length - 1] += ' {';
  }
  return out.join('\n');
}
const inspectPlain = (value) =>
  withoutRunnerFrames(util.inspect(value, { colors: false, depth: 4, maxArrayLength: 100 }));
const inspectAnsi = (value) =>
  withoutRunnerFrames(util.inspect(value, { colors: true, depth: 4, maxArrayLength: 100 }));

/** The MIME bundle of a value: its own (Symbol.for('Jupyter.display')), else util.inspect. */
function bundleOf(value) {
  if (value !== null && (typeof value === 'object' || typeof value === 'function')) {
    const own = value[JUPYTER_DISPLAY];
    if (typeof own === 'function') {
      const bundle = own.call(value);
      if (bundle && typeof bundle === 'object') return checkBundle(bundle);
    }
  }
  return { 'text/plain': inspectPlain(value), [ANSI_MIME]: inspectAnsi(value) };
}

function checkBundle(bundle) {
  if (!bundle || typeof bundle !== 'object' || isArray(bundle)) {
    throw new TypeError('display(bundle, {raw: true}) needs an object of MIME type → data');
  }
  const out = {};
  for (const [mime, data] of entries(bundle)) {
    if (!mime.includes('/')) throw new TypeError(`display(..., {raw: true}): "${mime}" is not a MIME type`);
    out[mime] = Buffer.isBuffer(data) ? data.toString('base64') : data;
  }
  return out;
}

/**
 * display(value) shows a value as a cell output; display(bundle, {raw: true}) sends a MIME bundle
 * as is ({"text/markdown": "# hi"}, {"image/png": <base64 or Buffer>}); {displayId, update}
 * replace an earlier output.
 */
function display(value, options = {}) {
  const bundle = options?.raw ? checkBundle(value) : bundleOf(value);
  const frame = { type: 'display', id: currentId(), bundle };
  const displayId = options && (options.displayId ?? options.display_id);
  if (displayId !== undefined) {
    frame.displayId = Str(displayId);
    if (options.update) frame.update = true;
  }
  send(frame);
}

// ---------------------------------------------------------------------------------------------
// require and import() from the working directory

const requireFrom = (dir) => createRequire(path.join(dir, '<omp-eval>'));

function cellRequire(id) {
  return requireFrom(proc.cwd())(id);
}
cellRequire.resolve = (id, options) => requireFrom(proc.cwd()).resolve(id, options);
cellRequire.cache = require.cache;

const builtins = new Set(builtinModules);

async function cellImport(specifier, options) {
  const load = async (target) => {
    try {
      return await (options === undefined ? import(target) : import(target, options));
    } catch (err) {
      // Node names the importing file: that is the runner, not the cell.
      if (err && typeof err.message === 'string')
        err.message = err.message.replace(/ imported from \S+$/, '');
      if (err && typeof err.stack === 'string') err.stack = err.stack.replace(/ imported from \S+/, '');
      throw err;
    }
  };
  const spec = Str(specifier);
  if (spec.startsWith('.') || path.isAbsolute(spec)) {
    return load(url.pathToFileURL(path.resolve(proc.cwd(), spec)).href);
  }
  if (/^[a-z][a-z0-9+.-]*:/i.test(spec) || builtins.has(spec)) return load(spec);
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
  return load(url.pathToFileURL(resolved).href);
}

/** An ESM-only package's entry (its "exports" have no require condition): node_modules walk. */
function packageEntry(spec) {
  const parts = spec.split('/');
  const name = spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
  const sub = parts.slice(spec.startsWith('@') ? 2 : 1).join('/');
  for (let dir = proc.cwd(); ; dir = path.dirname(dir)) {
    const pkgDir = path.join(dir, 'node_modules', name);
    try {
      const pkg = parseJson(fs.readFileSync(path.join(pkgDir, 'package.json'), 'utf8'));
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

// ---------------------------------------------------------------------------------------------
// Globals of the cells

function defineGlobal(name, value) {
  defineProperty(globalThis, name, { value, writable: true, configurable: true, enumerable: false });
}
defineGlobal('display', display);
defineGlobal('require', cellRequire);
defineGlobal(IMPORT_FN, cellImport);

// ---------------------------------------------------------------------------------------------
// Waiting for what cells left running (`omp-eval run`, as `node script.js` would)

/** Active resources by type (timers, sockets, child processes) keeping the loop alive. */
function resourceCounts() {
  const counts = new Map();
  for (const type of proc.getActiveResourcesInfo()) counts.set(type, (counts.get(type) ?? 0) + 1);
  return counts;
}
/** The runner's own, taken when the kernel became idle after its init. */
let idleResources = new Map();

/** While `run` waits: the first uncaught error or process.exit() of a callback ends the script. */
let draining = null;

defineGlobal('__omp_drain__', async function drain() {
  draining = { failure: null };
  try {
    for (;;) {
      if (draining.failure) throw draining.failure;
      const now = resourceCounts();
      if ([...now].every(([type, n]) => n <= (idleResources.get(type) ?? 0))) return;
      await new PromiseCtor((resolve) => setTimeout(resolve, 20));
    }
  } finally {
    draining = null;
  }
});

// ---------------------------------------------------------------------------------------------
// Errors

/** process.exit() in a cell ends the cell, as sys.exit() does in Python; the kernel lives on. */
class ProcessExit extends Error {
  constructor(code) {
    super(`process.exit(${code ?? ''}) ended the cell; the kernel keeps running (restart it to start over)`);
    this.name = 'ProcessExit';
    this.code = code;
  }
}
proc.exit = function exit(code) {
  throw new ProcessExit(code ?? proc.exitCode);
};

class Interrupted extends Error {
  constructor(message) {
    super(message);
    this.name = 'Interrupted';
  }
}

function isRunnerFrame(line) {
  return (
    RUNNER_FILES.some((file) => line.includes(file)) ||
    /\((node:|internal\/)|at (node:|internal\/)|\bat new Script \(|<anonymous>\)?$/.test(line)
  );
}

/** The traceback of a thrown value: its stack without the runner's and Node's own frames. */
function tracebackOf(err) {
  if (!(err instanceof Error) && !(err && typeof err.stack === 'string')) {
    return [`Uncaught ${inspectPlain(err)}`];
  }
  // util.inspect shows what the stack leaves out: `[cause]`, an AggregateError's errors, `code`.
  let text;
  try {
    text = err instanceof Error ? inspectPlain(err) : err.stack;
  } catch {
    text = undefined;
  }
  if (typeof text !== 'string')
    text = typeof err.stack === 'string' ? err.stack : `${err.name}: ${err.message}`;
  return withoutRunnerFrames(text).split('\n');
}

function errorFrame(err) {
  const isError = err instanceof Error || (err && typeof err === 'object' && 'message' in err);
  const frame = {
    type: 'error',
    id: currentId(),
    ename: isError ? Str(err.name || err.constructor?.name || 'Error') : 'Uncaught',
    evalue: isError ? Str(err.message) : inspectPlain(err),
    traceback: tracebackOf(err),
  };
  // The code process.exit() was given travels as a field, not inside the message.
  if (err instanceof ProcessExit) frame.exitCode = exitCodeOf(err.code);
  return frame;
}

/** process.exit()'s code as Node would exit with it: an integer, 0 when none was given. */
function exitCodeOf(code) {
  const n = code === undefined || code === null || code === '' ? 0 : Number(code);
  return Number.isInteger(n) ? n & 0xff : 1;
}

// Errors of callbacks that outlive their cell print like Node's, and the kernel lives on.
proc.on('uncaughtException', (err) => {
  if (draining && !draining.failure) {
    draining.failure =
      err instanceof ProcessExit
        ? err
        : new Error(`a callback threw: ${err instanceof Error ? err.message : inspectPlain(err)}`);
    if (err instanceof ProcessExit) return;
  }
  send({ type: 'stderr', id: currentId(), data: `Uncaught ${tracebackOf(err).join('\n')}\n` });
});
proc.on('unhandledRejection', (reason) => {
  if (draining && !draining.failure) {
    draining.failure = new Error(
      `a promise was rejected and not handled: ${reason instanceof Error ? reason.message : inspectPlain(reason)}`,
    );
  }
  send({
    type: 'stderr',
    id: currentId(),
    data: `Uncaught (in promise) ${tracebackOf(reason).join('\n')}\n`,
  });
});

// SIGINT between cells is ignored; during an await it ends the cell (synchronous code is stopped
// by breakOnSigint, which takes precedence while it runs).
proc.on('SIGINT', () => {
  if (current?.interrupt) current.interrupt();
});

// ---------------------------------------------------------------------------------------------
// Running cells

function compile(code, filename) {
  let transformed;
  try {
    transformed = transformCell(code);
  } catch (parseError) {
    if (parseError.cellTransform) throw parseError;
    // V8's own message (and position) for the original code; if V8 accepts what acorn did not,
    // the code runs as written.
    const script = new vm.Script(code, { filename });
    if (!(parseError instanceof SyntaxError)) throw parseError;
    return { script, async: false };
  }
  const script = new vm.Script(transformed.code, { filename, lineOffset: transformed.lineOffset });
  return { script, async: transformed.async };
}

/** Runs a cell; resolves to `{value}` (a box, so that a promise the cell returns is shown, not awaited). */
async function runCode(code, filename) {
  const { script, async } = compile(code, filename);
  let value = script.runInThisContext({ breakOnSigint: true, displayErrors: false });
  if (async) {
    const interrupted = new PromiseCtor((_, reject) => {
      current.interrupt = () => reject(new Interrupted('the cell was interrupted while it awaited'));
    });
    const wrapper = await PromiseCtor.race([value, interrupted]);
    value = wrapper ? wrapper.value : undefined;
  }
  return { value };
}

/** `_` is the last result, as in Node's REPL, until a cell gives `_` a value of its own. */
let lastResult;
function keepLastResult(value) {
  if ('_' in globalThis && !ObjectCtor.is(globalThis._, lastResult)) return;
  lastResult = value;
  defineGlobal('_', value);
}

async function execute(request) {
  const silent = request.silent === true;
  const storeHistory = request.storeHistory !== false && !silent;
  if (storeHistory) executionCount += 1;
  current = { id: request.id, interrupt: null };
  send({ type: 'started', id: request.id });
  let status = 'ok';
  let cancelled = false;
  try {
    if (request.init) init(request);
    const filename = storeHistory ? `Cell In[${executionCount}]` : '<omp-eval>';
    if (request.code?.trim()) {
      const { value } = await runCode(request.code, filename);
      if (value !== undefined && !silent) {
        send({ type: 'result', id: request.id, bundle: bundleOf(value) });
        keepLastResult(value);
      }
    }
  } catch (err) {
    status = 'error';
    reportError(err, request.id);
    cancelled = isInterrupt(err);
  }
  restoreIntrinsics(request.id);
  // Output written to fd 1 and 2 directly (child processes) reaches the host on other pipes: a
  // marker on each tells it when all of this cell's has arrived. Still this cell's until then.
  const rawSync = markRawStreams(request.id);
  current = null;
  send({ type: 'done', id: request.id, status, executionCount, cancelled, rawSync });
  if (request.init) idleResources = resourceCounts();
}

const isInterrupt = (err) =>
  err instanceof Interrupted ||
  (err !== null && typeof err === 'object' && err.code === 'ERR_SCRIPT_EXECUTION_INTERRUPTED');

/** The error frame of a cell's exception; never throws (a hostile `stack` getter included). */
function reportError(err, id) {
  try {
    if (isInterrupt(err)) {
      const evalue = err instanceof Interrupted ? err.message : 'the cell was interrupted';
      send({
        type: 'error',
        id,
        ename: 'Interrupted',
        evalue,
        traceback: [`Interrupted: ${evalue}`],
      });
    } else {
      send(errorFrame(err));
    }
  } catch {
    send({
      type: 'error',
      id,
      ename: 'Error',
      evalue: 'the cell threw a value that cannot be shown',
      traceback: [],
    });
  }
}

function markRawStreams(id) {
  try {
    for (const fd of [1, 2]) fs.writeSync(fd, `\u0000omp-sync:${SYNC_TOKEN}:${id}\u0000`);
    return true;
  } catch {
    return false; // a cell closed fd 1 or 2
  }
}

function init(request) {
  if (request.cwd) proc.chdir(request.cwd);
  for (const [key, value] of entries(request.env || {})) {
    if (value === null) delete proc.env[key];
    else proc.env[key] = Str(value);
  }
}

// ---------------------------------------------------------------------------------------------
// Completion: names of the global scope, or properties of a dotted path before the cursor

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

function propertyNames(value) {
  const names = new SetCtor();
  for (let o = value; o !== null && o !== undefined; o = getPrototypeOf(o)) {
    for (const name of getOwnPropertyNames(o)) names.add(name);
    if (o === ObjectCtor.prototype) break;
  }
  return [...names];
}

function complete(request) {
  const before = request.code.slice(0, request.cursor);
  const match = /((?:[A-Za-z_$][\w$]*\s*\.\s*)*)([A-Za-z_$][\w$]*)?$/.exec(before);
  const prefix = match[2] || '';
  // `x[0].fo` or `f().fo`: the path does not start at a global; nothing to offer.
  const beforePath = before.slice(0, match.index).slice(-1);
  if (match[1] && /[.\])'"`]/.test(beforePath)) {
    send({ type: 'complete_reply', id: request.id, matches: [], start: request.cursor, end: request.cursor });
    return;
  }
  const start = request.cursor - prefix.length;
  let names = [];
  try {
    if (match[1]) {
      // Only names and dots (the regex above), evaluated with a deadline: a getter that never
      // returns must not hold the kernel.
      const path = match[1]
        .split('.')
        .map((part) => part.trim())
        .filter(Boolean)
        .join('.');
      const value = vm.runInThisContext(path, { timeout: 500, breakOnSigint: true });
      names = propertyNames(ObjectCtor(value));
    } else {
      names = [...propertyNames(globalThis), ...KEYWORDS];
    }
  } catch {
    names = [];
  }
  const matches = [...new SetCtor(names)]
    .filter((n) => n.startsWith(prefix) && /^[A-Za-z_$][\w$]*$/.test(n))
    .sort();
  send({
    type: 'complete_reply',
    id: request.id,
    matches: matches.slice(0, 200),
    start,
    end: request.cursor,
  });
}

// ---------------------------------------------------------------------------------------------
// Requests in: one cell at a time, in order

const queue = [];
let running = false;

async function pump() {
  if (running) return;
  running = true;
  try {
    while (queue.length) {
      const request = queue.shift();
      if (request.type === 'exit') reallyExit(0);
      if (request.type === 'complete') complete(request);
      else if (request.type === 'input_reply') continue;
      else await execute(request);
    }
  } finally {
    running = false;
  }
}

const requests = new net.Socket({ fd: REQUESTS_FD, readable: true, writable: false });
let pending = '';
requests.setEncoding('utf8');
requests.on('data', (text) => {
  pending += text;
  let newline = pending.indexOf('\n');
  while (newline !== -1) {
    const line = pending.slice(0, newline);
    pending = pending.slice(newline + 1);
    newline = pending.indexOf('\n');
    if (!line.trim()) continue;
    let request;
    try {
      request = parseJson(line);
    } catch {
      send({ type: 'stderr', id: null, data: `omp-eval js kernel: ignored a request that is not JSON\n` });
      continue;
    }
    queue.push(request);
  }
  void pump();
});
// The host closed our requests: it is gone or shutting us down.
requests.on('end', () => reallyExit(0));
requests.on('error', () => reallyExit(0));
