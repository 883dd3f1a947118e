'use strict';
/**
 * Stack traces as the cell wrote them: every error of the main realm is formatted by
 * `Error.prepareStackTrace` (Node's own default, given the frames we keep), so `err.stack`,
 * `console.error(err)`, `console.trace()` and the error frames alike show
 *
 * - the cell's lines and columns as typed (the transform's position maps), and
 * - none of the runner's frames, nor the frames below the deepest cell frame when those are
 *   only the runner's and Node's (`Script.runInThisContext`, the task queue).
 */
const { originalPosition } = require('./positions.cjs');

const CELL_FILE = /^(?:Cell In\[\d+\]|<omp-eval>)$/;
const CELL_POSITION = /(Cell In\[\d+\]|<omp-eval>):(\d+):(\d+)/g;

const isInternal = (file) =>
  file === null || file === undefined || file.startsWith('node:') || file.startsWith('internal/');
/** Node's own scheduling (the microtask queue after an await, the timer list): no part of the cell's story. */
const isScheduling = (file) =>
  typeof file === 'string' && /^node:internal\/(?:process\/task_queues|timers)\b/.test(file);

const fileOf = (site) => {
  try {
    return site.getFileName() ?? site.getScriptNameOrSourceURL?.() ?? null;
  } catch {
    return null;
  }
};

/**
 * Which of a stack's frames (their `files`) go: runs of the runner's and Node's frames that
 * include one of the runner's (the task queue that resumed a helper of the kernel is not the
 * cell's business).
 */
function runnerRuns(files, isRunnerFile) {
  const drop = files.map((f) => isRunnerFile(f));
  for (let i = 0; i < files.length; ) {
    let j = i;
    let runner = false;
    for (; j < files.length && (isRunnerFile(files[j]) || isInternal(files[j])); j++) {
      if (drop[j]) runner = true;
    }
    if (runner) for (let k = i; k < j; k++) drop[k] = true;
    i = j === i ? i + 1 : j;
  }
  return drop;
}

/** Drops lines of the runner's frames from text formatted without us (a replaced prepareStackTrace). */
function withoutRunnerFrames(text, runnerPaths) {
  const out = [];
  for (const line of text.split('\n')) {
    // biome-ignore lint/suspicious/noControlCharactersInRegex: colour codes around a frame
    const plain = line.replace(/\u001b\[\d+m/g, '');
    const runner = /^\s+at /.test(plain) && runnerPaths.some((file) => plain.includes(file));
    if (!runner) out.push(line);
    else if (plain.endsWith(' {') && out.length) out[out.length - 1] += ' {';
  }
  return out.join('\n');
}

/** The cells of a script (`omp-eval run`), by file name: where their lines are in the script. */
function scriptOrigins() {
  const origins = new Map();
  /** Where a cell's line is, as a stack says it: `Cell In[3]:2`, or `/path/script.js:14`. */
  const where = (file, line) => {
    const origin = origins.get(file);
    return origin ? `${origin.path}:${line + origin.offset}` : `${file}:${line}`;
  };
  return {
    where,
    set(file, path, offset) {
      origins.set(file, { path, offset });
    },
    /** A syntax error's first line says where it is (`Cell In[3]:2`). */
    header: (text) =>
      text.replace(
        /^(Cell In\[\d+\]|<omp-eval>):(\d+)\n/,
        (_, file, line) => `${where(file, Number(line))}\n`,
      ),
  };
}

function createStacks({ main, util, isRunnerFile, runnerPaths, nodePrepare, isProcessExit }) {
  /** Position maps of transformed cells, by file name. */
  const maps = new Map();
  const origins = scriptOrigins();
  const { inspect: utilInspect } = util;
  const { isNativeError } = util.types;
  const errorToString = main.Error.prototype.toString;

  /** The frame's text with cell positions mapped; null for the async wrapper's own code. */
  function frameText(site) {
    let hidden = false;
    const text = String(site).replace(CELL_POSITION, (whole, file, line, column) => {
      const entry = maps.get(file);
      const pos = entry
        ? originalPosition(entry.map, entry.source, Number(line), Number(column))
        : { line: Number(line), column: Number(column) };
      if (!pos) {
        hidden = true;
        return whole;
      }
      return `${origins.where(file, pos.line)}:${pos.column}`;
    });
    return hidden ? null : text;
  }

  function keptFrames(sites) {
    // (a plain loop: the array and its prototype are the cells' realm's)
    const files = [];
    let deepestCell = -1;
    for (let i = 0; i < sites.length; i++) {
      files.push(fileOf(sites[i]));
      if (typeof files[i] === 'string' && CELL_FILE.test(files[i])) deepestCell = i;
    }
    // The runner's frames go, and so does everything below the deepest cell frame when it is only
    // the runner's and Node's.
    const drop = runnerRuns(files, isRunnerFile);
    const tailIsRunners =
      deepestCell !== -1 && files.slice(deepestCell + 1).every((f) => isRunnerFile(f) || isInternal(f));
    const kept = [];
    for (let i = 0; i < sites.length; i++) {
      if (drop[i] || isScheduling(files[i])) continue;
      if (tailIsRunners && i > deepestCell) break;
      const text = frameText(sites[i]);
      if (text !== null) kept.push(text);
    }
    return kept;
  }

  function prepareStackTrace(error, sites) {
    let kept;
    try {
      kept = Array.isArray(sites) ? keptFrames(sites) : sites;
    } catch {
      kept = sites;
    }
    if (typeof nodePrepare === 'function') return nodePrepare(error, kept);
    const head = errorToString.call(error);
    return kept.length ? `${head}\n    at ${kept.join('\n    at ')}` : head;
  }

  const inspectOptions = (colors) => ({ colors, depth: 4, maxArrayLength: 100, showProxy: true });
  const inspect = (value, colors = false) =>
    withoutRunnerFrames(utilInspect(value, inspectOptions(colors)), runnerPaths);

  const hasStack = (err) =>
    isNativeError(err) || (err && typeof err === 'object' && typeof err.stack === 'string');

  /** The traceback of a thrown value: util.inspect of it (its `[cause]` and properties too). */
  function tracebackOf(err) {
    if (!hasStack(err)) return [`Uncaught ${inspect(err)}`];
    let text;
    try {
      text = isNativeError(err) ? inspect(err) : err.stack;
    } catch {
      text = undefined;
    }
    if (typeof text !== 'string')
      text = typeof err.stack === 'string' ? err.stack : `${err.name}: ${err.message}`;
    // util.inspect brackets an error whose stack has no frames ([SyntaxError: ...]), as a syntax
    // error's: shown bare, as Node prints it (its properties, if any, still follow).
    const stack = typeof err.stack === 'string' ? err.stack : '';
    if (stack && text.startsWith(`[${stack}]`)) text = stack + text.slice(stack.length + 2);
    text = origins.header(text);
    return withoutRunnerFrames(text, runnerPaths).split('\n');
  }

  /**
   * What Node's REPL prints of an error no cell caught (a callback's, or a promise rejected and
   * not handled): `Uncaught ` and its traceback, as `Uncaught 42` or `Uncaught Error: boom`.
   */
  function uncaught(err) {
    const lines = tracebackOf(err);
    return hasStack(err) ? `Uncaught ${lines.join('\n')}` : lines.join('\n');
  }

  function errorFrame(err, id) {
    const isError = isNativeError(err) || (err && typeof err === 'object' && 'message' in err);
    const frame = {
      type: 'error',
      id,
      ename: isError ? String(err.name || err.constructor?.name || 'Error') : 'Uncaught',
      evalue: isError ? String(err.message) : inspect(err),
      traceback: tracebackOf(err),
    };
    // The code process.exit() was given travels as a field, not inside the message.
    if (isProcessExit(err)) frame.exitCode = exitCodeOf(err.code);
    return frame;
  }

  return {
    prepareStackTrace,
    register(filename, map, source) {
      maps.set(filename, { map, source });
    },
    /** The cell in `filename` is a script's, from its line `offset + 1` (`omp-eval run`). */
    origin: origins.set,
    inspect,
    tracebackOf,
    uncaught,
    errorFrame,
  };
}

/** process.exit()'s code as Node would exit with it: an integer, 0 when none was given. */
function exitCodeOf(code) {
  const n = code === undefined || code === null || code === '' ? 0 : Number(code);
  return Number.isInteger(n) ? n & 0xff : 1;
}

module.exports = { createStacks };
