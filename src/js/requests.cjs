'use strict';
/**
 * Requests in, on fd 4: NDJSON lines, read by the event loop between cells, and read
 * synchronously while input() waits for its reply (inside a script run with breakOnSigint, so
 * Ctrl-C stops the wait, also in the async part of a cell).
 */
const REQUESTS_FD = 4;

/** Splits text into lines on `\n` only, in linear time however a long line arrives. */
function lineSplitter(onLine) {
  const parts = [];
  return function push(text) {
    let start = 0;
    for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', start)) {
      parts.push(text.slice(start, nl));
      onLine(parts.join(''));
      parts.length = 0;
      start = nl + 1;
    }
    if (start < text.length) parts.push(text.slice(start));
  };
}

/** A request line as an object, or `{error}` saying why it is not one (as server.py words it). */
function parseRequest(line) {
  let request;
  try {
    request = JSON.parse(line);
  } catch (err) {
    return { error: `request is not valid JSON: ${err.message}` };
  }
  if (request === null || typeof request !== 'object' || Array.isArray(request)) {
    const type = request === null ? 'null' : Array.isArray(request) ? 'array' : typeof request;
    return { error: `request must be a JSON object, got ${type}` };
  }
  return { request };
}

// What a request's fields are, as src/eval/schemas/protocol.json (the one description) says; the
// schema-driven test (test/integration/protocol-schema.test.ts) holds both runners to it.
const MAX_ID_CHARS = 1024;
const isString = (v) => typeof v === 'string';
const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const EXECUTE_FIELDS = [
  ['silent', 'a boolean', (v) => typeof v === 'boolean'],
  ['storeHistory', 'a boolean', (v) => typeof v === 'boolean'],
  ['allowStdin', 'a boolean', (v) => typeof v === 'boolean'],
  ['stdinEnds', 'a boolean', (v) => typeof v === 'boolean'],
  ['init', 'a boolean', (v) => typeof v === 'boolean'],
  ['cwd', 'a string', isString],
  ['frameKey', 'a string', isString],
  ['cellNumber', 'an integer', Number.isSafeInteger],
  ['scriptLine', 'an integer', Number.isSafeInteger],
  [
    'env',
    'an object of strings or null',
    (v) => isObject(v) && Object.values(v).every((x) => x === null || isString(x)),
  ],
  [
    'script',
    'an object with argv (strings) and path (a string)',
    (v) =>
      isObject(v) &&
      Array.isArray(v.argv) &&
      v.argv.every(isString) &&
      (v.path === undefined || isString(v.path)) &&
      Object.keys(v).every((k) => k === 'argv' || k === 'path'),
  ],
];

const validId = (id) => isString(id) && id.length > 0 && id.length <= MAX_ID_CHARS;

/** What is wrong with an execute request's fields besides its id, or undefined (as channel.py says). */
function executeProblem(request) {
  if (!isString(request.code)) return 'code must be a string';
  for (const [name, rule, fits] of EXECUTE_FIELDS)
    if (Object.hasOwn(request, name) && !fits(request[name])) return `${name} must be ${rule}`;
  return undefined;
}

function createRequests({ net, fs, vm, Buffer, StringDecoder, membrane, runnerContext, guard }) {
  const { readSync } = fs; // the runner's own reference: cells may replace fs.readSync
  const decoder = new StringDecoder('utf8');
  const lines = [];
  const push = lineSplitter((line) => {
    if (line.trim()) lines.push(line);
  });
  let ended = false;
  let listener = () => {};
  let onEnd = () => {};

  const socket = new net.Socket({ fd: REQUESTS_FD, readable: true, writable: false });
  socket.on(
    'data',
    membrane.expose('onRequestData', (_, chunk) => {
      push(decoder.write(chunk));
      listener();
    }),
  );
  // The host closed our requests: it is gone or shutting us down.
  const end = membrane.expose('onRequestsEnd', () => {
    ended = true;
    onEnd();
  });
  socket.on('end', end);
  socket.on('error', end);

  const buffer = Buffer.alloc(64 * 1024);
  const pause = new Int32Array(new SharedArrayBuffer(4));
  /** Reads fd 4 until a line is there (true) or the host closed it (false). */
  function waitForLine() {
    while (!lines.length) {
      if (ended) return false;
      let n;
      try {
        n = readSync(REQUESTS_FD, buffer, 0, buffer.length, null);
      } catch (err) {
        if (err && err.code === 'EAGAIN') {
          Atomics.wait(pause, 0, 0, 2);
          continue;
        }
        ended = true;
        return false;
      }
      if (n === 0) {
        ended = true;
        return false;
      }
      push(decoder.write(buffer.subarray(0, n)));
    }
    return true;
  }
  globalThis.__omp_wait_for_request__ = waitForLine;
  const waitScript = new vm.Script('__omp_wait_for_request__()', { filename: 'omp-eval:requests' });

  return {
    /** `onLines` runs when lines arrived; `onClosed` when the host closed the channel. */
    listen(onLines, onClosed) {
      listener = onLines;
      onEnd = onClosed;
    },
    /** The next parsed line, if one is waiting. */
    next() {
      return lines.length ? parseRequest(lines.shift()) : undefined;
    },
    /** The next parsed line, waiting for it; null when the host closed the channel. */
    nextSync() {
      const got = guard(() =>
        waitScript.runInContext(runnerContext, { breakOnSigint: true, displayErrors: false }),
      );
      return got ? parseRequest(lines.shift()) : null;
    },
  };
}

module.exports = { createRequests, executeProblem, lineSplitter, parseRequest, validId };
