/** The bottom line: kernel state, interpreter, working directory, mode, execution count, hints. */
import { homedir } from 'node:os';
import type { ReactNode } from 'react';
import type { RemoteKernelInfo } from '../../eval/index.js';
import { Text } from '../ink.js';
import type { KernelInfo } from '../state/reducer.js';
import { columnsOf } from '../text/graphemes.js';

const STATE_COLOR: Record<string, string> = {
  idle: 'green',
  busy: 'yellow',
  interrupting: 'yellow',
  starting: 'cyan',
  dead: 'red',
  none: 'gray',
};

const HINTS = '/help · ctrl+o output · ctrl+c interrupt';

function shortPath(path: string): string {
  const home = homedir();
  return path === home ? '~' : path.startsWith(`${home}/`) ? `~${path.slice(home.length)}` : path;
}

/** A Jupyter kernel as the status line names it: its kernelspec, the start of its id, the server. */
export function remoteLabel(remote: RemoteKernelInfo): string {
  return `${remote.kernelName} ${remote.kernelId.slice(0, 8)} on ${remote.server}`;
}

export interface StatusParts {
  state: string;
  info: string;
  right: string;
}

/** The status line's pieces: what the layout measures is what is drawn. */
export function statusParts(
  kernel: KernelInfo,
  counter: number,
  columns: number,
  message?: string,
): StatusParts {
  const state = `● ${kernel.state === 'none' ? 'no kernel' : kernel.state}`;
  const runtime = kernel.language === 'js' ? 'Node' : 'Python';
  // A remote kernel is named by the server's kernel; never the local Python, which does not run.
  const version =
    kernel.remote ??
    (kernel.jupyter
      ? `Jupyter kernel on ${kernel.jupyter}`
      : kernel.version
        ? `${runtime} ${kernel.version}`
        : runtime);
  const sandbox = kernel.sandbox ? ` │ ${kernel.sandbox}` : '';
  const env = kernel.env ? ` │ ${kernel.env}` : '';
  const tail = ` │ ${shortPath(kernel.cwd)} │ ${kernel.mode}${sandbox}${env} │ [${counter}]  `;
  const right = message ?? HINTS;
  // The interpreter's path only when the message still fits beside it.
  const path = kernel.python ? ` (${shortPath(kernel.python)})` : '';
  const withPath = columnsOf(`${state} │ ${version}${path}${tail}${right}`) <= columns;
  return { state, info: ` │ ${version}${withPath ? path : ''}${tail}`, right };
}

/** The text of the status line, for the layout (a message that does not fit goes on a row of its own). */
export const statusText = (parts: StatusParts) => `${parts.state}${parts.info}${parts.right}`;

export function StatusLine({
  parts,
  kernel,
  message,
  columns,
}: {
  parts: StatusParts;
  kernel: KernelInfo;
  message?: string;
  columns: number;
}): ReactNode {
  const own = columnsOf(statusText(parts)) > columns && message !== undefined;
  const right = message ? <Text color="yellow">{parts.right}</Text> : <Text dimColor>{parts.right}</Text>;
  return (
    <>
      <Text wrap="truncate-end">
        <Text color={STATE_COLOR[kernel.state] ?? 'gray'}>{parts.state}</Text>
        <Text dimColor>{parts.info}</Text>
        {own ? null : right}
      </Text>
      {own ? <Text wrap="truncate-end">{right}</Text> : null}
    </>
  );
}
