/**
 * The Jupyter client library reports through the global console ("Starting WebSocket: ...",
 * "Connection lost, reconnecting ..."). In this program stdout belongs to the notebook's screen,
 * the tool's JSON or the MCP stream, so what the library says goes to the engine's logger as a
 * trace instead (shown with PI_PYTHON_IPC_TRACE=1); what matters to the user (a lost connection,
 * a restarted kernel) the remote kernel reports itself. Everyone else's console calls are left
 * as they are.
 */
import type { Logger } from '../logger.js';

const LIBRARY_PATHS = ['/@jupyterlab/', '/@lumino/'];
const METHODS = ['debug', 'log', 'info', 'warn', 'error'] as const;

let current: { logger: Logger; trace: boolean } | undefined;

/** Whether the console call being made comes from the client library. */
function fromLibrary(): boolean {
  const stack = new Error().stack ?? '';
  // Frame 0 is this function, 1 the wrapper; the caller is next.
  const caller = stack.split('\n')[3] ?? '';
  return LIBRARY_PATHS.some((path) => caller.includes(path));
}

function text(args: unknown[]): string {
  return args
    .map((a) => (a instanceof Error ? (a.stack ?? a.message) : typeof a === 'string' ? a : String(a)))
    .join(' ');
}

/**
 * Sends the library's console output to `logger` from now on, as traces when `trace` is on and
 * nowhere otherwise (the last caller's logger wins).
 */
export function divertLibraryConsole(logger: Logger, trace: boolean): void {
  const installed = current !== undefined;
  current = { logger, trace };
  if (installed) return;
  for (const method of METHODS) {
    const original = console[method].bind(console);
    console[method] = (...args: unknown[]) => {
      if (!fromLibrary()) original(...args);
      else if (current?.trace) current.logger.trace(`jupyter client: ${method}: ${text(args)}`);
    };
  }
}
