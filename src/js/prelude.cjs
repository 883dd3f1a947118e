'use strict';
/**
 * (Main realm.) The helpers of src/py/prelude.py for JavaScript cells, with the same names and
 * results: env, read, write, append, tree, diff, log, phase, parallel, pipeline, and agent() and
 * completion() over the host bridge. What Python does on threads returns a promise here.
 */
const fs = require('node:fs');
const path = require('node:path');

const STRERROR = {
  EACCES: 'Permission denied',
  ENOENT: 'No such file or directory',
  ENOTDIR: 'Not a directory',
  ELOOP: 'Too many levels of symbolic links',
  EPERM: 'Operation not permitted',
};

/** The host could not answer a bridge call (not configured, failed, or cancelled). */
class BridgeError extends Error {
  constructor(message) {
    super(message);
    this.name = 'BridgeError';
  }
}

const codePoints = (text) => {
  let n = 0;
  for (const _ of text) n++;
  return n;
};
/** A text file's lines as Python's text mode reads them (universal newlines). */
const readText = (file) => fs.readFileSync(file, 'utf8').replace(/\r\n?/g, '\n');
const linesOf = (text) => text.match(/[^\n]*\n|[^\n]+$/g) ?? [];

function env(key, value) {
  if (key === undefined || key === null) return { ...process.env };
  if (value === undefined || value === null) return process.env[key];
  process.env[String(key)] = String(value);
  return String(value);
}

/** The file an `artifact://<id>` or `agent://<id>` name stands for; any other path as it is. */
function resolveName(file) {
  const text = String(file);
  for (const [prefix, fileName] of [
    ['artifact://', (id) => `${id}.txt`],
    ['agent://', (id) => `agent-${id}.json`],
  ]) {
    if (!text.startsWith(prefix)) continue;
    const id = text.slice(prefix.length);
    if (!/^[\w-]+$/.test(id)) throw new Error(`not a valid ${prefix} name: ${text}`);
    const folder = process.env.OMP_EVAL_ARTIFACTS;
    if (!folder) throw new Error(`${prefix} names cannot be read here: the host named no artifacts folder`);
    return path.join(folder, fileName(id));
  }
  return file;
}

/** The lines of tree(): the folders under `root`, `maxDepth` deep (hidden names left out). */
function treeLines(root, maxDepth) {
  const lines = [String(root)];
  let count = 0;
  const walk = (folder, depth, prefix) => {
    let names;
    try {
      names = fs
        .readdirSync(folder)
        .filter((n) => !n.startsWith('.'))
        .sort();
    } catch (err) {
      lines.push(`${prefix}[${STRERROR[err.code] ?? err.code ?? err.message}]`);
      return;
    }
    names.forEach((name, i) => {
      const last = i === names.length - 1;
      const full = path.join(folder, name);
      let isDir = false;
      try {
        isDir = fs.statSync(full).isDirectory();
      } catch {
        // a broken link: a file
      }
      lines.push(`${prefix}${last ? '└── ' : '├── '}${name}${isDir ? '/' : ''}`);
      count += 1;
      if (isDir && depth < maxDepth) walk(full, depth + 1, prefix + (last ? '    ' : '│   '));
    });
  };
  walk(String(root), 1, '');
  return { lines, count };
}

/**
 * Runs the functions (at most `concurrency` at once, default one per function up to 16) and
 * resolves to their results in input order; the first failure rejects (no new one starts).
 */
async function parallel(thunks, concurrency = undefined) {
  const list = [...thunks];
  const results = new Array(list.length);
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && next < list.length) {
      const i = next++;
      try {
        results[i] = await list[i]();
      } catch (err) {
        failed = true;
        throw err;
      }
    }
  };
  const workers = Math.max(1, concurrency || Math.min(16, list.length));
  await Promise.all(Array.from({ length: Math.min(workers, list.length) }, worker));
  return results;
}

/** Passes every item through the stages in order (each may be async), items concurrently. */
function pipeline(items, ...stages) {
  const last = stages[stages.length - 1];
  const options = last && typeof last === 'object' ? stages.pop() : {};
  const through = async (item) => {
    let value = item;
    for (const stage of stages) value = await stage(value);
    return value;
  };
  return parallel(
    [...items].map((item) => () => through(item)),
    options.concurrency,
  );
}

/** The output as the host parsed it and checked it against the schema (ajv), or why not. */
function structured(value) {
  if (value.schemaError) throw new (value.notJson ? SyntaxError : TypeError)(value.schemaError);
  return value.data;
}

/** The helpers that work on files, each reporting what it did as a status line (`status`). */
function fileHelpers(status) {
  function read(file, offset = 0, limit = undefined) {
    const lines = linesOf(readText(resolveName(file)));
    const chosen = lines.slice(offset, limit === undefined || limit === null ? undefined : offset + limit);
    status('read', { path: String(file), lines: chosen.length, total: lines.length });
    return chosen.join('');
  }

  function write(file, text) {
    fs.writeFileSync(file, String(text), 'utf8');
    const chars = codePoints(String(text));
    status('write', { path: String(file), chars });
    return chars;
  }

  function append(file, text) {
    fs.appendFileSync(file, String(text), 'utf8');
    const chars = codePoints(String(text));
    status('append', { path: String(file), chars });
    return chars;
  }

  function tree(root = '.', maxDepth = 2) {
    const { lines, count } = treeLines(root, maxDepth);
    status('tree', { path: String(root), entries: count });
    return lines.join('\n');
  }

  function diff(a, b, context = 3) {
    const { unifiedDiff, splitLines } = require('./difflib.cjs');
    let names = ['a', 'b'];
    const isFile = (x) =>
      typeof x === 'string' && !x.includes('\n') && fs.statSync(x, { throwIfNoEntry: false })?.isFile();
    if (isFile(a) && isFile(b)) {
      names = [a, b];
      a = readText(a);
      b = readText(b);
    }
    const lines = unifiedDiff(splitLines(String(a)), splitLines(String(b)), names[0], names[1], context);
    const changed = lines.filter((l) => l[0] === '+' || l[0] === '-').length - 2 * (lines.length ? 1 : 0);
    status('diff', { changed });
    return lines.join('');
  }

  return { read, write, append, tree, diff };
}

/** agent() and completion(): calls to the host over the bridge (`caps.bridge`). */
function bridgeHelpers(status, caps) {
  /** One host call; the host pauses the cell's timeout while it is in flight. */
  async function bridge(kind, payload, label) {
    status(kind, { state: 'started', label });
    let value;
    try {
      const json = await new Promise((resolve, reject) =>
        caps.bridge(kind, JSON.stringify(payload), resolve, reject),
      );
      value = JSON.parse(json) ?? {};
    } catch (err) {
      const error = err instanceof Error ? err : new BridgeError(String(err));
      status(kind, { state: 'failed', label, error: error.message });
      status('timeout-resume');
      throw error;
    }
    status('timeout-resume');
    status(kind, { state: 'finished', label });
    return value;
  }

  /**
   * Runs one agent on the host and resolves to its final text (the parsed object with `schema`;
   * with `handle: true` a node whose `handle` is an agent:// URI).
   */
  async function agent(
    prompt,
    { agent = 'task', model = null, label = null, schema = null, handle = false } = {},
  ) {
    const value = await bridge(
      'agent',
      { prompt: String(prompt), agent, model, label, schema },
      label || agent,
    );
    const text = value.output ?? '';
    const data = schema !== null ? structured(value) : undefined;
    if (!handle) return schema !== null ? data : text;
    const node = { text, output: text, handle: value.handle, id: value.id, agent };
    if (schema !== null) node.data = data;
    return node;
  }

  /** Asks the host for one completion; with `schema` the parsed object. */
  async function completion(prompt, { model = null, system = null, schema = null } = {}) {
    const value = await bridge('completion', { prompt: String(prompt), model, system, schema }, 'completion');
    const text = value.output ?? '';
    return schema !== null ? structured(value) : text;
  }

  return { agent, completion };
}

module.exports = function createPrelude({ display, caps }) {
  const status = (op, data = {}) => display({ 'application/x-omp-status': { ...data, op } }, { raw: true });
  const { read, write, append, tree, diff } = fileHelpers(status);
  const { agent, completion } = bridgeHelpers(status, caps);
  const log = (message) => status('log', { message: String(message) });
  const phase = (title) => status('phase', { title: String(title) });

  return {
    globals: {
      env,
      read,
      write,
      append,
      tree,
      diff,
      log,
      phase,
      parallel,
      pipeline,
      agent,
      completion,
      BridgeError,
    },
  };
};
