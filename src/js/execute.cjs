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

function createExecutor({ proc, vm, fs, timers, frames, stacks, hooks, membrane, main, sigint }) {
  // The runner's own references: cells may replace these.
  const { writeSync } = fs;
  const { Script } = vm;
  let current = null;
  /** acorn and the transform, loaded after start (the init cell has no code). */
  let transform = null;
  const loadTransform = () => {
    transform ??= require('./transform.cjs');
    return transform;
  };
  let executionCount = 0;
  /** The key on frames and markers (from the init request), and the next barrier's number. */
  let frameKey = '';
  let nextBarrier = 0;
  const RunnerPromise = Promise;
  /** Files of cells that Ctrl-C abandoned while they awaited, until their promise settles. */
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
   * The id output belongs to now: the running cell's, or null between cells. Once Ctrl-C
   * abandoned an await, what that cell's code prints later (its outermost frame, async callers
   * included, is the abandoned cell's) is background output too.
   */
  function outputId() {
    if (current === null) return null;
    // (a running script is the current cell's: no abandoned code runs until it returns)
    if (abandoned.size && !frames.inScriptNow()) {
      const files = stackFiles();
      for (let i = files.length - 1; i >= 0; i--) {
        if (files[i] === current.filename) break;
        if (abandoned.has(files[i])) return null;
      }
    }
    return current.id;
  }

  function compile(code, filename) {
    let t;
    try {
      t = loadTransform().transformCell(code);
    } catch (parseError) {
      if (parseError.cellTransform) throw parseError;
      // V8's own message (and position) for the code as written; if V8 accepts what acorn did
      // not, the code runs as written.
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

  /**
   * Runs a cell; resolves to `{value}` (a box, so that a promise the cell returns is shown, not
   * awaited). A SIGINT that arrives just as the synchronous part ends interrupts the async part.
   */
  async function run(compiled, cell) {
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

  const isInterrupt = (err) =>
    err instanceof Interrupted ||
    (err !== null && typeof err === 'object' && err.code === 'ERR_SCRIPT_EXECUTION_INTERRUPTED');

  /** The error frame of a cell's exception; never throws (a hostile `stack` getter included). */
  function reportError(err, id) {
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
   * Barrier `n` of the raw output (src/eval/protocol/markers.ts): a marker on fd 1 and fd 2, then
   * the frame that carries `sync: n`. The host passes that frame on once what fd 1 and fd 2
   * carried before the markers has been, and what they carry after it only after the frame. So
   * output of a cell's child processes is never taken for another cell's. Returns the fields to
   * put on the frame (none when a cell closed both descriptors).
   */
  function barrier() {
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
  }

  function init(request) {
    if (request.cwd) proc.chdir(request.cwd);
    for (const [key, value] of Object.entries(request.env || {})) {
      if (value === null) delete proc.env[key];
      else proc.env[key] = String(value);
    }
  }

  async function execute(request) {
    const silent = request.silent === true;
    const storeHistory = request.storeHistory !== false && !silent;
    if (storeHistory) executionCount += 1;
    if (request.init && typeof request.frameKey === 'string' && !frameKey) {
      frames.setKey(request.frameKey);
      frameKey = request.frameKey;
    }
    // The number the front end shows for the cell, when it sends one, names it in stacks.
    const shown = Number.isSafeInteger(request.cellNumber) && request.cellNumber > 0 ? request.cellNumber : 0;
    const filename = storeHistory ? `Cell In[${shown || executionCount}]` : '<omp-eval>';
    const cell = { id: request.id, filename, allowStdin: request.allowStdin === true, interrupt: null };
    current = cell;
    sigint.takePending(); // one that came between cells is not this cell's
    frames.send({ type: 'started', id: cell.id, ...barrier() }, true);
    let status = 'ok';
    let cancelled = false;
    try {
      if (request.init) init(request);
      hooks.prepare();
      const code = request.code ?? '';
      if (code.trim()) {
        const compiled = compile(code, filename);
        hooks.enter(compiled.lexical, compiled.vars);
        let value;
        try {
          ({ value } = await run(compiled, cell));
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
      cancelled = isInterrupt(err);
      reportError(err, cell.id);
      if (!cancelled && !silent) hooks.keepError(membrane.toMain(err));
    }
    // What the cell left for process.nextTick (a stream's or readline's callback) is still its own.
    await new RunnerPromise((resolve) => proc.nextTick(resolve));
    frames.repair();
    // Output written to fd 1 and 2 directly (child processes) reaches the host on other pipes: the
    // barrier tells it when all of this cell's has arrived. Still this cell's until then.
    const sync = barrier();
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
