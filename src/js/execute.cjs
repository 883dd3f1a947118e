'use strict';
/**
 * Running cells: compile (transform.cjs, V8's own message for syntax errors), run in the cells'
 * realm with `breakOnSigint`, race an async cell against Ctrl-C, report the result or the error,
 * and end with `done`. Output is attributed to the running cell; once Ctrl-C abandoned an
 * `await`, the stack tells the abandoned cell's continuations (background output, id null) from
 * the running cell's.
 */

const ABANDONED_MS = 10 * 60 * 1000;

class Interrupted extends Error {
  constructor(message) {
    super(message);
    this.name = 'Interrupted';
  }
}

/** The file names on the stack (async callers included), outermost last. */
function stackFiles() {
  const saved = Error.prepareStackTrace;
  const limit = Error.stackTraceLimit;
  Error.prepareStackTrace = (_, sites) => sites;
  Error.stackTraceLimit = 100;
  const holder = {};
  Error.captureStackTrace(holder);
  const sites = holder.stack;
  Error.prepareStackTrace = saved;
  Error.stackTraceLimit = limit;
  return Array.isArray(sites) ? sites.map((site) => site.getFileName()) : [];
}

/**
 * Cells that Ctrl-C abandoned while they awaited: their files are remembered until their promise
 * settles (or is collected, or after ABANDONED_MS), so that what their code prints later is told
 * from the running cell's output.
 */
function createAbandoned({ main, timers }) {
  /** Files of abandoned cells, counted, until their promise settles. */
  const abandoned = new Map();
  /** An abandoned cell that can no longer resume (collected) stops costing a stack per write. */
  const collected = new FinalizationRegistry((token) => token.forget());

  function abandon(filename, wrapper) {
    abandoned.set(filename, (abandoned.get(filename) ?? 0) + 1);
    let done = false;
    const token = {
      forget() {
        if (done) return;
        done = true;
        const n = abandoned.get(filename) - 1;
        if (n > 0) abandoned.set(filename, n);
        else abandoned.delete(filename);
      },
    };
    const settled = () => token.forget();
    Reflect.apply(main.PromiseThen, wrapper, [settled, settled]);
    collected.register(wrapper, token);
    // One that waits for ever, but stays referenced, is forgotten after a while too.
    timers.setTimeout(settled, ABANDONED_MS).unref();
  }

  /**
   * True when a stack (its `files`, outermost last) is an abandoned cell's code, while the cell in
   * `filename` runs: its outermost frame of a cell, async callers included, is the abandoned one's.
   */
  function ownsStack(files, filename) {
    for (let i = files.length - 1; i >= 0; i--) {
      if (files[i] === filename) return false;
      if (abandoned.has(files[i])) return true;
    }
    return false;
  }

  return {
    abandon,
    ownsStack,
    get any() {
      return abandoned.size > 0;
    },
  };
}

/**
 * Compiles a cell (transform.cjs; `Script` and `stacks` the runner's own). Code acorn cannot parse
 * gets V8's own message and position (Node's REPL's, after an `await`); if V8 accepts what acorn
 * did not, it runs as written.
 */
function compileCell(code, filename, { Script, stacks, loadTransform }) {
  let t;
  try {
    t = loadTransform().transformCell(code);
  } catch (parseError) {
    if (parseError.cellTransform) throw parseError;
    const afterAwait = loadTransform().awaitSyntaxError(code);
    if (afterAwait) throw syntaxError(code, filename, afterAwait);
    return { script: new Script(code, { filename }), async: false, lexical: [], vars: [] };
  }
  let script;
  try {
    script = new Script(t.code, { filename });
  } catch (err) {
    new Script(code, { filename }); // V8's message for the cell as typed, if it has one
    throw err;
  }
  stacks.register(filename, t.map, code);
  return { script, async: t.async, lexical: t.lexical, vars: t.vars };
}

/** A SyntaxError laid out as V8's of a script: where, the line, a caret under the column. */
function syntaxError(code, filename, { message, line, column }) {
  const err = new SyntaxError(message);
  const text = code.split('\n')[line - 1] ?? '';
  err.stack = `${filename}:${line}\n${text}\n${' '.repeat(Math.max(0, column))}^\n\nSyntaxError: ${message}`;
  return err;
}

const isInterrupt = (err) =>
  err instanceof Interrupted ||
  (err !== null && typeof err === 'object' && err.code === 'ERR_SCRIPT_EXECUTION_INTERRUPTED');

/** The error frame of a cell's exception; never throws (a hostile `stack` getter included). */
function reportError(err, id, { frames, stacks }) {
  try {
    if (isInterrupt(err)) {
      const evalue = err instanceof Interrupted ? err.message : 'the cell was interrupted';
      frames.send({
        type: 'error',
        id,
        ename: 'Interrupted',
        evalue,
        traceback: [`Interrupted: ${evalue}`],
      });
    } else {
      frames.send(stacks.errorFrame(err, id));
    }
  } catch {
    const evalue = 'the cell threw a value that cannot be shown';
    frames.send({ type: 'error', id, ename: 'Error', evalue, traceback: [] });
  }
}

/**
 * Barriers of the raw output (src/eval/protocol/markers.ts): barrier `n` is a marker on fd 1 and
 * fd 2, then the frame that carries `sync: n`. The host passes that frame on once what fd 1 and
 * fd 2 carried before the markers has been, and what they carry after it only after the frame. So
 * output of a cell's child processes is never taken for another cell's. `next()` writes the
 * markers and returns the fields to put on the frame (none when a cell closed both descriptors).
 */
function createBarriers(writeSync, frames) {
  /** The key on frames and markers (from the init request), and the next barrier's number. */
  let frameKey = '';
  let nextBarrier = 0;
  return {
    /** The init request's key, once: on every frame and marker from now on. */
    takeKey(request) {
      if (!request.init || typeof request.frameKey !== 'string' || frameKey) return;
      frames.setKey(request.frameKey);
      frameKey = request.frameKey;
    },
    next() {
      const n = nextBarrier++;
      let marked = false;
      for (const fd of [1, 2]) {
        try {
          writeSync(fd, `\u0000omp-sync:${frameKey}:f${n}\u0000`);
          marked = true;
        } catch {
          // a cell closed this descriptor
        }
      }
      return marked ? { sync: n } : {};
    },
  };
}

/**
 * The init request's working directory, environment and script (`omp-eval run`). Returns the name
 * the script's frames show (its path, as node's), if there is one.
 */
function init(proc, request) {
  if (request.cwd) proc.chdir(request.cwd);
  for (const [key, value] of Object.entries(request.env || {})) {
    if (value === null) delete proc.env[key];
    else proc.env[key] = String(value);
  }
  const script = request.script;
  const argv = script && Array.isArray(script.argv) ? script.argv : [];
  // As `node script.js a b` names it: process.argv is [node, the script's path, a, b].
  if (argv.length && argv.every((a) => typeof a === 'string')) {
    const path = typeof script.path === 'string' && script.path.startsWith('/') ? script.path : argv[0];
    proc.argv.splice(1, proc.argv.length - 1, path, ...argv.slice(1));
  }
  return script && typeof script.path === 'string' && script.path ? script.path : undefined;
}

/** A cell's file name in stacks: the number the front end shows for it, when it sends one. */
function cellFilename(request, executionCount) {
  const shown = Number.isSafeInteger(request.cellNumber) && request.cellNumber > 0 ? request.cellNumber : 0;
  return `Cell In[${shown || executionCount}]`;
}

/**
 * Runs a compiled cell; resolves to `{value}` (a box, so that a promise the cell returns is shown,
 * not awaited). A SIGINT that arrives just as the synchronous part ends interrupts the async part,
 * and Ctrl-C during an await abandons it (`abandon`).
 */
async function runCell(compiled, cell, { sigint, main, abandon, RunnerPromise }) {
  const value = sigint.run(() =>
    compiled.script.runInThisContext({ breakOnSigint: true, displayErrors: false }),
  );
  if (!compiled.async) return { value };
  const interrupted = new RunnerPromise((_, reject) => {
    cell.interrupt = () => {
      cell.interrupt = null;
      abandon(cell.filename, value);
      reject(new Interrupted('the cell was interrupted while it awaited'));
    };
  });
  if (sigint.takePending()) cell.interrupt();
  const stopWatching = sigint.watch();
  try {
    // (then as it was at start: a cell may have replaced Promise.prototype.then)
    const settled = new RunnerPromise((resolve, reject) =>
      Reflect.apply(main.PromiseThen, value, [resolve, reject]),
    );
    const box = await RunnerPromise.race([settled, interrupted]);
    return { value: box ? box.value : undefined };
  } finally {
    stopWatching();
  }
}

/** acorn and the transform, loaded after start (the init cell has no code). */
let transform = null;
const loadTransform = () => {
  transform ??= require('./transform.cjs');
  return transform;
};

function createExecutor({ proc, vm, fs, timers, frames, stacks, hooks, membrane, main, sigint }) {
  // The runner's own references: cells may replace these.
  const { writeSync } = fs;
  const { Script } = vm;
  let current = null;
  /** The script the cells come from (`omp-eval run`): its cells' frames name it. */
  let scriptPath;
  let executionCount = 0;
  const barriers = createBarriers(writeSync, frames);
  const RunnerPromise = Promise;
  const abandoned = createAbandoned({ main, timers });
  const compiling = { Script, stacks, loadTransform };
  const running = { sigint, main, abandon: abandoned.abandon, RunnerPromise };

  /**
   * The id output belongs to now: the running cell's, or null between cells. Once Ctrl-C
   * abandoned an await, what that cell's code prints later is background output too.
   */
  function outputId() {
    if (current === null) return null;
    // (a running script is the current cell's: no abandoned code runs until it returns)
    if (abandoned.any && !frames.inScriptNow() && abandoned.ownsStack(stackFiles(), current.filename))
      return null;
    return current.id;
  }

  async function execute(request) {
    const silent = request.silent === true;
    const storeHistory = request.storeHistory !== false && !silent;
    if (storeHistory) executionCount += 1;
    barriers.takeKey(request);
    const filename = storeHistory ? cellFilename(request, executionCount) : '<omp-eval>';
    const cell = {
      id: request.id,
      filename,
      allowStdin: request.allowStdin === true,
      stdinEnds: request.allowStdin === true && request.stdinEnds === true,
      interrupt: null,
    };
    current = cell;
    sigint.takePending(); // one that came between cells is not this cell's
    frames.send({ type: 'started', id: cell.id, ...barriers.next() }, true);
    let status = 'ok';
    let cancelled = false;
    try {
      if (request.init) scriptPath = init(proc, request);
      const line = request.scriptLine;
      // (`omp-eval run`: the cell's frames name the script and its lines, as node's)
      if (scriptPath && storeHistory && Number.isSafeInteger(line) && line > 0)
        stacks.origin(filename, scriptPath, line - 1);
      hooks.prepare();
      const code = request.code ?? '';
      if (code.trim()) {
        const compiled = compileCell(code, filename, compiling);
        hooks.enter(compiled.lexical, compiled.vars);
        let value;
        try {
          ({ value } = await runCell(compiled, cell, running));
        } finally {
          hooks.leave();
        }
        if (!silent) {
          if (value !== undefined)
            frames.send({ type: 'result', id: cell.id, bundle: hooks.bundleOf(value) });
          hooks.keepResult(value);
        }
      }
    } catch (err) {
      status = 'error';
      // A SIGINT that stopped a child process first (execSync) can end the script with the
      // child's error before the watchdog stops the script: the cell was interrupted all the same.
      cancelled = isInterrupt(err) || sigint.takeAfter(err);
      reportError(err, cell.id, { frames, stacks });
      if (!cancelled && !silent) hooks.keepError(membrane.toMain(err));
    }
    // What the cell left for process.nextTick (a stream's or readline's callback) is still its own,
    // and so is a promise it rejected and left unhandled (Node reports those after the microtasks
    // have run): the cell ends on the next turn of the event loop, as an eval of Node's REPL.
    await new RunnerPromise((resolve) => timers.setImmediate(resolve));
    frames.repair();
    // Output written to fd 1 and 2 directly (child processes) reaches the host on other pipes: the
    // barrier tells it when all of this cell's has arrived. Still this cell's until then.
    const sync = barriers.next();
    current = null;
    frames.send({ type: 'done', id: cell.id, status, executionCount, cancelled, ...sync });
  }

  return {
    execute,
    outputId,
    preload: loadTransform,
    /** SIGINT outside synchronous code (breakOnSigint handles that): abandons a pending await. */
    interruptAwait() {
      if (current?.interrupt) current.interrupt();
    },
    get current() {
      return current;
    },
    get executionCount() {
      return executionCount;
    },
  };
}

module.exports = { createExecutor };
