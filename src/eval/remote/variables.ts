/**
 * A remote Python kernel's user names, listed as a local kernel lists them. Jupyter has no request
 * for them (the debugger's `variables` needs a debug session), so one silent execute_request (no
 * execution count, no history, no execute_input for other clients) evaluates a single user
 * expression. It runs the local kernel's own listing, src/py/omp_kernel/variables.py (standard
 * library only, no side effects on import), in a dictionary of its own, so nothing is bound in
 * the user's namespace. It reads IPython's user namespace and hidden names, as %who does, with the
 * same per-name deadlines (SIGALRM on the kernel's main thread, where ipykernel evaluates user
 * expressions). A kernel that is not IPython's, or answers in another shape, gets the reason.
 */
import { readFileSync } from 'node:fs';
import type { Kernel as JupyterKernel } from '@jupyterlab/services';
import type { Variables } from '../kernel/types.js';
import type { VariableInfo } from '../protocol/index.js';
import { withDeadline } from './deadline.js';

const LISTING = new URL('../../py/omp_kernel/variables.py', import.meta.url);

/** What the expression adds to variables.py: the listing of IPython's namespace, as JSON text. */
const ENTRY = `
import json as _json


class _JsonText(object):
    """IPython's text/plain of this is the JSON itself (a str would come back as its repr)."""

    def __init__(self, text):
        self.text = text

    def __repr__(self):
        return self.text


def _omp_listing(shell, limit, name_timeout, timeout):
    described, total = list_variables(shell.user_ns, shell.user_ns_hidden, limit, name_timeout, timeout)
    return _JsonText(_json.dumps({"variables": described, "total": total}))
`;

let source: string | undefined;

/** The one Python expression that lists the names (a JSON string is a Python string literal). */
export function listingExpression(limit: number, nameTimeoutMs: number, timeoutMs: number): string {
  source ??= readFileSync(LISTING, 'utf8') + ENTRY;
  const seconds = (ms: number) => String(Math.max(ms, 1) / 1000);
  return (
    `(lambda g: (exec(${JSON.stringify(source)}, g), ` +
    `g["_omp_listing"](get_ipython(), ${Math.max(0, Math.floor(limit))}, ${seconds(nameTimeoutMs)}, ` +
    `${seconds(timeoutMs)}))[1])({"__name__": "omp_eval_variables"})`
  );
}

interface ExpressionResult {
  status?: string;
  data?: Record<string, unknown>;
  ename?: string;
  evalue?: string;
}

/** The listing out of the user expression's result, or why there is none. */
export function readListing(result: ExpressionResult | undefined): Variables {
  const failed = (error: string): Variables => ({ variables: [], total: 0, error });
  if (!result) return failed('the kernel gave no answer to the listing');
  if (result.status !== 'ok')
    return failed(
      result.ename === 'NameError'
        ? 'the kernel is not IPython (no get_ipython()); run %whos or dir() in a cell instead'
        : `the listing failed in the kernel: ${result.ename ?? 'error'}: ${result.evalue ?? ''}`.trimEnd(),
    );
  const text = result.data?.['text/plain'];
  try {
    const parsed = JSON.parse(String(text)) as { variables?: unknown; total?: unknown };
    if (!Array.isArray(parsed.variables) || typeof parsed.total !== 'number') throw new Error('shape');
    return { variables: parsed.variables as VariableInfo[], total: parsed.total };
  } catch {
    return failed('the kernel answered the listing in an unknown form');
  }
}

/**
 * The user's names in a remote Python kernel, once it is idle: at most `limit` described, each
 * summary within `nameTimeoutMs`, the whole answer within `timeoutMs` (most of it for the kernel's
 * own listing, the rest for the reply to come).
 */
export async function remoteVariables(
  connection: JupyterKernel.IKernelConnection,
  limit: number,
  timeoutMs: number,
  nameTimeoutMs: number,
): Promise<Variables> {
  const kernelMs = Math.max(1, timeoutMs - Math.min(1_000, timeoutMs / 5));
  const future = connection.requestExecute({
    code: '',
    silent: true,
    store_history: false,
    allow_stdin: false,
    stop_on_error: false,
    user_expressions: { listing: listingExpression(limit, nameTimeoutMs, kernelMs) },
  });
  try {
    const reply = await withDeadline(future.done, timeoutMs, () => new Error('timeout'));
    const content = reply.content as { status: string; user_expressions?: Record<string, ExpressionResult> };
    return readListing(content.user_expressions?.listing);
  } catch {
    future.dispose();
    return { variables: [], total: 0, error: 'the kernel did not answer the listing in time' };
  }
}
