/**
 * The tools the MCP server offers: names, descriptions written for a model, and JSON Schemas of
 * their input and structured output. Input is checked again by the handlers, with messages a model
 * can act on (the schemas are for the client; not every client validates them).
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { toolInputSchema } from '../../eval/index.js';
import { type KernelMode, type Settings, sandboxOf, sandboxSummary, serverLabel } from './engine.js';

/** Names of independent kernel sets: letters, digits, `_`, `-`, `.`. */
export const SESSION_NAME = /^[A-Za-z0-9_.-]{1,64}$/;
export const DEFAULT_SESSION = 'default';

const sessionProperty = {
  type: 'string',
  pattern: SESSION_NAME.source,
  description:
    'Name of an independent set of kernels (default "default"). Different names never share state; use one only when you need a second, separate workspace.',
} as const;

const languageChoice = {
  type: 'string',
  enum: ['py', 'js', 'both'],
  default: 'both',
} as const;

/** What persists, for the server's kernel mode. */
const PERSISTENCE = {
  session:
    'What persists: variables, imports, functions and loaded data stay in memory from call to call, so load data once and keep working on it. Python and JavaScript have separate kernels. State is lost only by the "restart" tool, a cell with "reset": true, or a kernel that crashed or had to be killed (the result then says so).',
  'per-call':
    'What persists: nothing between calls. This server runs in per-call mode: every call starts fresh kernels, so put everything a computation needs into the cells of one call (they share state within the call).',
};

/**
 * Where each language's cells run and what bounds them. With --jupyter the Python cells run on the
 * Jupyter server, where the local sandbox does not reach; saying "Sandbox ... network off" for them
 * would tell the model a boundary that is not there.
 */
function boundaryText(sandbox: string | undefined, jupyter: string | undefined): string | undefined {
  if (!jupyter) return sandbox;
  const py = `Where cells run: Python ("py") cells run in a kernel on the Jupyter server at ${jupyter}, without the local sandbox: they can read, write and reach whatever that server's kernels can (its files, its network, its environment). omp-eval's Python helpers (read, write, tree, diff, log, phase) are not defined there, and the files omp-eval writes here (such as a cut output's) are readable there only if the server shares this machine's files.`;
  const js = sandbox
    ? `JavaScript ("js") cells run on this machine, in the local sandbox. For JavaScript cells only: ${sandbox}`
    : 'JavaScript ("js") cells run on this machine, without a sandbox.';
  return `${py}\n\n${js}`;
}

/**
 * What `%pip install` needs, said where it is offered: the network (the default sandbox turns it
 * off) and an interpreter that takes installs (a distribution's Python, Debian's /usr/bin/python3,
 * is externally managed and refuses them outside a virtual environment).
 */
function pipText(settings: Settings): string {
  const sandbox = sandboxOf(settings);
  const remote = Boolean(settings['jupyter.url']);
  const offline = !remote && sandbox.mode !== 'off' && !sandbox.allowNetwork;
  const network = offline
    ? 'cannot download here: the sandbox keeps the network off (only the user can allow it, with --allow-network), so use the packages already installed'
    : 'needs the network';
  const managed = remote
    ? ''
    : "; and it installs only into a virtual environment (a .venv or venv in the working directory is used when present): a distribution's own Python (Debian's /usr/bin/python3) is externally managed and refuses installs";
  return `%pip install ${network}${managed}.`;
}

function evalDescription(
  mode: KernelMode,
  timeout: number,
  sandbox: string | undefined,
  pip: string,
): string {
  return `Run Python ("py") or JavaScript ("js") code in a ${mode === 'session' ? 'persistent kernel' : 'fresh kernel'}, like notebook cells.

${PERSISTENCE[mode]}

How cells run: the cells of one call run in order; after a cell fails, the rest are skipped and the result says which cell to fix. The value of a cell's last expression is shown, as in Jupyter, along with print() output and tracebacks. Plots (matplotlib figures, PIL images, display() of an image) come back as images. Python cells also take IPython syntax (%cd, %pip, !shell commands, %%bash, %whos) and helpers: read(path, offset, limit), write(path, text), tree(), diff(a, b), log(message) and phase(title) for progress. ${pip}

Limits: each cell has a timeout (${timeout} s unless the cell sets "timeout", up to 3600 seconds for long work). A timed-out or cancelled cell is interrupted and the kernel keeps its state; a kernel that ignores the interrupt for 5 s is killed and its state is lost. A call's output is bounded to about 50,000 characters, shared among its cells: a cell's output beyond its share keeps its head and tail, and a marker names where all of it is: the resource artifact://<id> (read it with resources/read) and a file, which a later cell can open with read("artifact://<id>", offset, limit).

Starting over: call "restart", or set "reset": true on a cell. Use "variables" to see what is defined.${sandbox ? `\n\n${sandbox}` : ''}`;
}

const imageInfo = {
  type: 'object',
  properties: {
    mimeType: { type: 'string' },
    width: { type: 'integer' },
    height: { type: 'integer' },
    attached: { type: 'boolean', description: 'Sent as an image content block.' },
    note: { type: 'string' },
    uri: { type: 'string', description: 'Not attached: the image as an artifact:// resource.' },
  },
  required: ['mimeType', 'attached'],
} as const;

const cellResultSchema = {
  type: 'object',
  properties: {
    index: { type: 'integer', description: "The cell's place in the call, from 0." },
    title: { type: 'string' },
    language: { type: 'string', enum: ['py', 'js'] },
    status: { type: 'string', enum: ['ok', 'error', 'cancelled', 'skipped'] },
    exitCode: { type: ['integer', 'null'], description: 'Absent for a cell that was not run.' },
    executionCount: { type: 'integer' },
    durationMs: { type: 'number' },
    timedOut: { type: 'boolean', description: 'Present (true) only when the cell timed out.' },
    kernelKilled: { type: 'boolean', description: 'Present (true) only when its kernel had to be killed.' },
    retried: { type: 'boolean', description: 'Present (true) only when it ran again in a new kernel.' },
    text: {
      type: 'string',
      description:
        "The cell's part of the result's text, without colour: its output (head and tail, with a marker naming the artifact, when it was cut) and notices. Absent when there is none.",
    },
    fullOutput: {
      type: 'object',
      description: 'Where all of the output is, when the text was cut.',
      properties: {
        totalChars: { type: 'integer' },
        totalLines: { type: 'integer' },
        uri: { type: 'string' },
        path: { type: 'string' },
        error: { type: 'string' },
      },
      required: ['totalChars', 'totalLines'],
    },
    images: { type: 'array', items: imageInfo },
    error: {
      type: 'object',
      properties: { ename: { type: 'string' }, evalue: { type: 'string' } },
      required: ['ename', 'evalue'],
    },
  },
  required: ['index', 'language', 'status'],
} as const;

const EVAL_TOOL: Omit<Tool, 'description'> = {
  name: 'eval',
  title: 'Run code in a persistent kernel',
  // (the input of `omp-eval tool`, the one schema of both, with the session this server adds)
  inputSchema: {
    ...toolInputSchema,
    properties: { ...toolInputSchema.properties, session: sessionProperty },
  },
  outputSchema: {
    type: 'object',
    properties: {
      session: { type: 'string' },
      isError: { type: 'boolean' },
      notices: {
        type: 'array',
        items: { type: 'string' },
        description: 'News from before this call (a cancelled call, what became of its kernel).',
      },
      cells: { type: 'array', items: cellResultSchema },
      verdict: {
        type: 'string',
        description: 'On the cell that did not end ok: what happened, which cells were not run, what to fix.',
      },
      notes: {
        type: 'array',
        items: { type: 'string' },
        description:
          'About the result itself: images not attached, how to read a cut output, what was left out.',
      },
    },
    required: ['session', 'isError', 'cells'],
  },
  annotations: { title: 'Run code', readOnlyHint: false, destructiveHint: true, openWorldHint: true },
};

const RESTART_TOOL: Tool = {
  name: 'restart',
  title: 'Restart kernels',
  description:
    'Start over: shut down the Python ("py"), JavaScript ("js") or both kernels of a session. All their state (variables, imports, loaded data) is lost; the next eval starts a fresh kernel in the same working directory. Waits for a running eval of the same session to end first.',
  inputSchema: {
    type: 'object',
    properties: { language: languageChoice, session: sessionProperty },
    additionalProperties: false,
  },
  outputSchema: {
    type: 'object',
    properties: {
      session: { type: 'string' },
      restarted: { type: 'array', items: { type: 'string', enum: ['py', 'js'] } },
      stateLost: { type: 'boolean' },
      message: { type: 'string' },
    },
    required: ['session', 'restarted', 'stateLost', 'message'],
  },
  annotations: { title: 'Restart kernels', readOnlyHint: false, destructiveHint: true, idempotentHint: true },
};

const VARIABLES_TOOL: Tool = {
  name: 'variables',
  title: 'List defined names',
  description:
    "List the names defined in a session's kernels, with their type and a short summary (like IPython's %whos): what a later eval can use without recomputing. Does not change any state. A kernel that has not been started yet has no names.",
  inputSchema: {
    type: 'object',
    properties: { language: languageChoice, session: sessionProperty },
    additionalProperties: false,
  },
  outputSchema: {
    type: 'object',
    properties: {
      session: { type: 'string' },
      kernels: {
        type: 'object',
        properties: {
          py: { type: 'string', enum: ['running', 'not started', 'unavailable'] },
          js: { type: 'string', enum: ['running', 'not started', 'unavailable'] },
        },
      },
      variables: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            name: { type: 'string' },
            language: { type: 'string', enum: ['py', 'js'] },
            type: { type: 'string' },
            summary: { type: 'string' },
            shape: { type: 'array', items: { type: 'integer' } },
            skipped: { type: 'boolean' },
          },
          required: ['name', 'language', 'type', 'summary'],
        },
      },
      truncated: { type: 'boolean' },
    },
    required: ['session', 'kernels', 'variables'],
  },
  annotations: { title: 'List variables', readOnlyHint: true, idempotentHint: true },
};

/** The tools, their descriptions telling the model this server's kernel mode, cell timeout and where each language's cells run. */
export function toolsFor(settings: Settings): Tool[] {
  const jupyterUrl = settings['jupyter.url'];
  const boundary = boundaryText(
    sandboxSummary(sandboxOf(settings)),
    jupyterUrl ? serverLabel(jupyterUrl) : undefined,
  );
  const description = evalDescription(
    settings['python.kernelMode'],
    settings['eval.timeout'],
    boundary,
    pipText(settings),
  );
  return [{ ...EVAL_TOOL, description }, RESTART_TOOL, VARIABLES_TOOL];
}

/** The server's instructions: a short map of the tools for the model. */
export const INSTRUCTIONS =
  'omp-eval keeps Python and JavaScript kernels alive for this connection: "eval" runs cells and their state persists between calls; "variables" lists what is defined; "restart" starts over. Large output is saved as artifact://<id> resources.';
