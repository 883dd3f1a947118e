'use strict';
/**
 * The JavaScript kernel's server, in the runner's own vm context (runner.cjs loads it): requests
 * in on fd 4, frames out on fd 3 through the pump thread, cells run in the main context where
 * no cell can reach the runner. Requests are validated as src/py/server.py does: malformed ones
 * get a `ProtocolError` error frame and the kernel goes on.
 */
const { createMembrane } = require('./membrane.cjs');
const { createFrames } = require('./frames.cjs');
const { createStacks } = require('./stacks.cjs');
const { createRequests, executeProblem, validId } = require('./requests.cjs');
const { createExecutor } = require('./execute.cjs');
const { createCompleter } = require('./complete.cjs');
const { createBridge } = require('./bridge.cjs');
const { createBackground } = require('./background.cjs');
const { installCapture } = require('./capture.cjs');
const { createSigint } = require('./sigint.cjs');
const { isComplete } = require('./completeness.cjs');
const { createVariablesQuery, variablesOptions } = require('./variablesQuery.cjs');

const repr = (value) => (typeof value === 'string' ? `'${value}'` : (JSON.stringify(value) ?? String(value)));

/**
 * The runner's own parts: frames out, stack traces, SIGINT, requests in. `late` is given the
 * parts made after these (the cells' hooks, the executor), which these call only once cells run.
 */
function createChannels(host, late) {
  const { main, proc } = host;
  const vm = host.require('node:vm');
  const fs = host.require('node:fs');
  const net = host.require('node:net');
  const util = host.require('node:util');
  const { Buffer } = host.require('node:buffer');
  const { StringDecoder } = host.require('node:string_decoder');

  const membrane = createMembrane({ vm, main, filename: host.shimFile });
  const frames = createFrames(host.sab, { onHostGone: () => host.exit(0) });
  host.onPumpExit(() => frames.pumpDied());
  const stacks = createStacks({
    main,
    util,
    isRunnerFile: host.isRunnerFile,
    runnerPaths: host.runnerPaths,
    nodePrepare: host.nodePrepare,
    // hooks are made later; errors are framed only once cells run.
    isProcessExit: (err) => late.hooks.isProcessExit(err),
  });
  main.Error.prepareStackTrace = membrane.expose('prepareStackTrace', (_, error, sites) =>
    stacks.prepareStackTrace(error, sites),
  );
  const timers = host.require('node:timers');
  const sigint = createSigint({
    proc,
    timers,
    membrane,
    frames,
    onSigint: () => late.executor.interruptAwait(),
  });
  const requests = createRequests({
    net,
    fs,
    vm,
    Buffer,
    StringDecoder,
    membrane,
    runnerContext: host.context,
    guard: sigint.run,
  });
  return {
    main,
    proc,
    vm,
    fs,
    net,
    Buffer,
    StringDecoder,
    timers,
    membrane,
    frames,
    stacks,
    sigint,
    requests,
  };
}

/**
 * The cells' side: the capabilities the main realm gets (display, input, flush, the bridge), its
 * hooks (globals.cjs), the executor, background work, output capture, completion. `late` is given
 * the hooks and the executor as soon as they are made; `queued` keeps the requests that arrive
 * while input() waits for its reply.
 */
function createCells(host, channels, late, queued) {
  const {
    main,
    proc,
    vm,
    fs,
    net,
    Buffer,
    StringDecoder,
    timers,
    membrane,
    frames,
    stacks,
    sigint,
    requests,
  } = channels;
  const callBridge = createBridge({ net, proc, membrane, StringDecoder, Buffer });

  /** One answer of the host; EOFError at the end of its input. */
  function ask(cell, prompt, password) {
    frames.send({ type: 'input_request', id: cell.id, prompt, password: password === true });
    for (;;) {
      const next = requests.nextSync();
      if (next === null) throw hooks.eofError();
      if (next.request?.type === 'input_reply') {
        // (as Python's input(): the host's input, a pipe, has ended)
        if (next.request.eof === true) throw hooks.eofError('EOF when reading a line');
        const value = next.request.value ?? '';
        return typeof value === 'string' ? value : String(value);
      }
      queued.push(next);
    }
  }

  /** What the host sent of a stream beyond the line asked for (`omp-eval run`'s stdin). */
  let pendingInput = '';

  function input(_, prompt, password) {
    const cell = executor.current;
    if (!cell?.allowStdin) throw hooks.stdinError();
    if (!cell.stdinEnds) return ask(cell, String(prompt), password);
    // A stream comes in pieces of whole lines: the prompt is written here, in order with the
    // cell's output, and a line already sent is read without asking.
    frames.text(password === true ? 1 : 0, cell.id, String(prompt));
    while (!pendingInput.includes('\n')) {
      let piece;
      try {
        piece = ask(cell, '', password);
      } catch (err) {
        if (pendingInput && err?.message === 'EOF when reading a line') break;
        throw err;
      }
      pendingInput += piece;
    }
    const nl = pendingInput.indexOf('\n');
    const end = nl === -1 ? pendingInput.length : nl + 1;
    const line = pendingInput.slice(0, end);
    pendingInput = pendingInput.slice(end);
    return line.replace(/\r?\n$/, ''); // as readline's question(): the line without its ending
  }

  const caps = membrane.exposeAll({
    display(_, bundle, displayId, update) {
      const frame = { type: 'display', id: executor.outputId(), bundle };
      if (displayId !== undefined) {
        frame.displayId = String(displayId);
        if (update) frame.update = true;
      }
      frames.send(frame);
    },
    input,
    flush: () => frames.flush(),
    bridge: (_, kind, payloadJson, resolve, reject) =>
      callBridge(kind, payloadJson, executor.outputId(), resolve, reject),
  });
  caps.dynamicImport = host.dynamicImport;
  const hooks = host.loadMain('./globals.cjs', caps);
  late.hooks = hooks;
  const executor = createExecutor({ proc, vm, fs, timers, frames, stacks, hooks, membrane, main, sigint });
  late.executor = executor;
  const background = createBackground({
    proc,
    main,
    timers,
    frames,
    stacks,
    membrane,
    outputId: executor.outputId,
    isProcessExit: hooks.isProcessExit,
  });
  hooks.install(background.drain, background.pending);
  installCapture({ proc, Buffer, StringDecoder, frames, membrane, outputId: executor.outputId });
  const complete = createCompleter({
    vm,
    mainGlobal: host.mainGlobal,
    mainObjectPrototype: main.Object.prototype,
    guard: sigint.run,
  });
  return { hooks, executor, background, complete };
}

/**
 * Answers the requests that are not cells: is_complete (acorn, loaded on first use) and variables
 * (in the cells' realm, interruptible, a deadline per name: variablesQuery.cjs). `protocolError`
 * reports a malformed one.
 */
function createQueries({ vm, frames, sigint }, hooks, protocolError) {
  const listVariables = createVariablesQuery({ vm, sigint }, hooks);
  return function query(kind, request) {
    const { id } = request;
    if (kind === 'is_complete') {
      if (!validId(id) || typeof request.code !== 'string')
        return protocolError('is_complete needs id and code (strings)', validId(id) ? id : null);
      const { parse } = require('acorn');
      return frames.send({ type: 'is_complete_reply', id, ...isComplete(parse, request.code) });
    }
    const { options, problem } = variablesOptions(request);
    if (!validId(id) || problem)
      return protocolError(problem ?? 'variables needs id (a string)', validId(id) ? id : null);
    const listed = listVariables(options);
    return frames.send({ type: 'variables_reply', id, ...listed });
  };
}

/**
 * The handler of each request (`handle`), and the kernel's exit. The first cell warms up what
 * cells need but the kernel does not to become ready.
 */
function createHandler(host, channels, cells) {
  const { frames, stacks, timers } = channels;
  const { hooks, executor, background, complete } = cells;

  function protocolError(message, id = null) {
    frames.send({
      type: 'error',
      id,
      ename: 'ProtocolError',
      evalue: message,
      traceback: [`ProtocolError: ${message}`],
    });
  }
  const query = createQueries(channels, hooks, protocolError);

  let warm = false;
  /** What the kernel needs for cells but not to become ready: started after init, or now. */
  function warmUp() {
    if (warm) return;
    warm = true;
    host.startPump();
    executor.preload();
    hooks.installLate();
  }

  function exit() {
    frames.flush();
    host.exit(0);
  }

  /** One request, validated as server.py's _serve does. */
  async function handle({ request, error }) {
    if (error) return protocolError(error);
    const kind = request.type ?? 'execute';
    if (kind === 'exit') return exit();
    if (kind === 'input_reply') return; // a reply that arrived after its cell ended
    const id = request.id;
    if (kind === 'complete') {
      const { code, cursor = typeof code === 'string' ? code.length : 0 } = request;
      if (!validId(id) || typeof code !== 'string' || !Number.isSafeInteger(cursor)) {
        return protocolError(
          'complete needs id and code (strings) and cursor (an integer)',
          validId(id) ? id : null,
        );
      }
      return frames.send({ type: 'complete_reply', id, ...complete(code, cursor) });
    }
    if (kind === 'is_complete' || kind === 'variables') return query(kind, request);
    if (kind !== 'execute')
      return protocolError(`unknown request type ${repr(kind)}`, validId(id) ? id : null);
    if (!validId(id)) return protocolError('request needs an id (a string of 1 to 1024 characters)');
    const problem = executeProblem(request);
    if (problem !== undefined) {
      protocolError(`request ${repr(id)}: ${problem}`, id);
      const count = executor.executionCount;
      return frames.send({ type: 'done', id, status: 'error', executionCount: count, cancelled: false });
    }
    if (!request.init) warmUp();
    try {
      await executor.execute(request);
    } catch (err) {
      // A runner bug must not take the kernel down.
      frames.text(1, null, `omp-eval js kernel: internal error: ${stacks.inspect(err)}\n`);
      const count = executor.executionCount;
      frames.send({ type: 'done', id, status: 'error', executionCount: count, cancelled: false });
    }
    if (request.init) {
      background.markIdle();
      timers.setImmediate(warmUp);
    }
  }

  return { handle, exit };
}

module.exports = function serve(host) {
  const late = {};
  const channels = createChannels(host, late);
  /** Requests that arrived while input() waited for its reply. */
  const queued = [];
  const cells = createCells(host, channels, late, queued);
  const { handle, exit } = createHandler(host, channels, cells);

  let running = false;
  async function pump() {
    if (running) return;
    running = true;
    try {
      for (;;) {
        const next = queued.shift() ?? channels.requests.next();
        if (next === undefined) break;
        await handle(next);
      }
    } finally {
      running = false;
    }
  }

  channels.requests.listen(
    () => void pump(),
    () => exit(),
  );
};
