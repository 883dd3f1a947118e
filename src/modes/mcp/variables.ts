/**
 * The `variables` tool: a silent introspection cell in each running kernel (no execution count, no
 * history, no names left behind) that sends the user's names as one display frame of
 * VARIABLES_MIME. Python lists what %whos lists; JavaScript lists the cells' global declarations.
 */
import type { Frame, Language, Session } from './engine.js';

export const VARIABLES_MIME = 'application/x-omp-variables';
/** Names reported per kernel; the rest are counted. */
export const MAX_VARIABLES = 500;
/** How long the introspection may take (a __str__ that hangs) before it is interrupted. */
const INTROSPECTION_TIMEOUT_MS = 10_000;

export interface Variable {
  name: string;
  language: Language;
  type: string;
  summary: string;
  shape?: number[];
}

export type KernelPresence = 'running' | 'not started' | 'unavailable';

// %whos's summary: n=len for containers, else str() with its middle cut past 50 characters.
const PYTHON_INTROSPECTION = `
shell = get_ipython()
ns = shell.user_ns
hidden = shell.user_ns_hidden
names = sorted(k for k in ns if not k.startswith("_") and k not in hidden)
out = []
for name in names[:${MAX_VARIABLES}]:
    value = ns[name]
    kind = type(value).__name__
    try:
        if kind in ("dict", "list", "tuple", "set", "frozenset"):
            info = "n=%d" % len(value)
        else:
            info = str(value).replace("\\n", "\\\\n")
            if len(info) >= 50:
                info = info[:25] + "<...>" + info[-25:]
    except Exception:
        info = "<object with id %d (str() failed)>" % id(value)
    item = {"name": name, "type": kind, "summary": info}
    shape = getattr(value, "shape", None) if not isinstance(value, type) else None
    if isinstance(shape, tuple) and all(isinstance(n, int) for n in shape):
        item["shape"] = list(shape)
    out.append(item)
display({"${VARIABLES_MIME}": {"variables": out, "total": len(names)}}, raw=True)
`;

/** Runs the introspection in its own namespace, so the user's names stay as they were. */
const PYTHON_CELL = `__import__("builtins").exec(${JSON.stringify(PYTHON_INTROSPECTION)}, {"__builtins__": __import__("builtins"), "get_ipython": get_ipython, "display": display})`;

/**
 * Cells' top-level declarations become non-configurable properties of globalThis; plain
 * assignments (\`x = 1\`) configurable ones, told from Node's own globals by the host's list.
 */
function javascriptCell(hostGlobals: string[]): string {
  return `(() => {
  const host = new Set(${JSON.stringify(hostGlobals)});
  for (const m of require('node:module').builtinModules) host.add(m);
  const names = Object.getOwnPropertyNames(globalThis).filter((n) => !n.startsWith('_') && !host.has(n)).sort();
  const out = names.slice(0, ${MAX_VARIABLES}).map((name) => {
    let value, type, summary;
    try {
      value = globalThis[name];
      type = value === null ? 'null' : Array.isArray(value) ? 'Array' : typeof value === 'object' || typeof value === 'function' ? (value.constructor && value.constructor.name) || typeof value : typeof value;
      summary = Array.isArray(value) || value instanceof Map || value instanceof Set ? 'n=' + (value.length ?? value.size) : require('node:util').inspect(value, { depth: 0, breakLength: Infinity });
    } catch (err) {
      type = type || 'unknown';
      summary = '<inspect failed>';
    }
    summary = String(summary).replace(/\\n/g, '\\\\n');
    if (summary.length >= 50) summary = summary.slice(0, 25) + '<...>' + summary.slice(-25);
    return { name, type: String(type), summary };
  });
  display({ ${JSON.stringify(VARIABLES_MIME)}: { variables: out, total: names.length } }, { raw: true });
})()`;
}

/**
 * Globals that are not the user's: a plain Node process's (the js kernel runs on this same node
 * binary), the kernel's helpers and the REPL's names. (Built-in module names are added in the cell.)
 */
const HOST_GLOBALS = [
  ...Object.getOwnPropertyNames(globalThis),
  ...['display', 'input', 'env', 'read', 'write', 'append', 'tree', 'diff', 'log', 'phase'],
  ...['parallel', 'pipeline', 'agent', 'completion', 'BridgeError', 'require', 'module', 'exports'],
];

export interface KernelVariables {
  language: Language;
  presence: KernelPresence;
  variables: Variable[];
  total: number;
  error?: string;
}

/** The user's names in one language's kernel of the session (none when it is not running). */
export async function listVariables(session: Session, language: Language): Promise<KernelVariables> {
  const kernel = session.kernelOf(language);
  if (!kernel || kernel.state === 'dead')
    return { language, presence: 'not started', variables: [], total: 0 };
  let payload: { variables?: Omit<Variable, 'language'>[]; total?: number } | undefined;
  let failure: string | undefined;
  const signal = AbortSignal.timeout(INTROSPECTION_TIMEOUT_MS);
  const outcome = await kernel.execute(language === 'py' ? PYTHON_CELL : javascriptCell(HOST_GLOBALS), {
    silent: true,
    storeHistory: false,
    signal,
    onFrame: (frame: Frame) => {
      if (frame.type === 'display' && VARIABLES_MIME in frame.bundle) {
        payload = frame.bundle[VARIABLES_MIME] as typeof payload;
      } else if (frame.type === 'error') failure = `${frame.ename}: ${frame.evalue}`;
    },
  });
  if (!payload) {
    const why = signal.aborted ? 'it took too long and was interrupted' : (failure ?? outcome.error?.evalue);
    return { language, presence: 'running', variables: [], total: 0, error: `could not list names: ${why}` };
  }
  const variables = (payload.variables ?? []).map((v) => ({ ...v, language }));
  return { language, presence: 'running', variables, total: payload.total ?? variables.length };
}

/** %whos's table: name, type and summary columns. */
export function variablesTable(variables: Variable[]): string {
  const width = (values: string[], title: string) =>
    Math.max(title.length, ...values.map((v) => v.length)) + 3;
  const nameWidth = width(
    variables.map((v) => v.name),
    'Variable',
  );
  const typeWidth = width(
    variables.map((v) => v.type),
    'Type',
  );
  const rows = variables.map((v) => {
    const shape = v.shape ? ` shape=(${v.shape.join(', ')}${v.shape.length === 1 ? ',' : ''})` : '';
    return `${v.name.padEnd(nameWidth)}${v.type.padEnd(typeWidth)} ${v.summary}${shape}`;
  });
  const header = `${'Variable'.padEnd(nameWidth)}${'Type'.padEnd(typeWidth)} Data/Info`;
  return [header, '-'.repeat(nameWidth + typeWidth + 10), ...rows].join('\n');
}
