/** The bottom line: kernel state, interpreter, working directory, mode, execution count, hints. */
import { homedir } from 'node:os';
import { Text } from 'ink';
import type { ReactNode } from 'react';
import type { KernelInfo } from '../state/reducer.js';

const STATE_COLOR: Record<string, string> = {
  idle: 'green',
  busy: 'yellow',
  interrupting: 'yellow',
  starting: 'cyan',
  dead: 'red',
  none: 'gray',
};

const HINTS = '/help · ctrl+o expand · ctrl+c interrupt';

export function shortPath(path: string): string {
  const home = homedir();
  return path === home ? '~' : path.startsWith(`${home}/`) ? `~${path.slice(home.length)}` : path;
}

export function StatusLine({
  kernel,
  message,
  columns,
}: {
  kernel: KernelInfo;
  message?: string;
  columns: number;
}): ReactNode {
  const state = `● ${kernel.state === 'none' ? 'no kernel' : kernel.state}`;
  const runtime = kernel.language === 'js' ? 'Node' : 'Python';
  const version = kernel.version ? `${runtime} ${kernel.version}` : runtime;
  const tail = ` │ ${shortPath(kernel.cwd)} │ ${kernel.mode} │ [${kernel.executionCount}]  `;
  const right = message ?? HINTS;
  // The interpreter's path only when the message still fits beside it.
  const path = kernel.python ? ` (${shortPath(kernel.python)})` : '';
  const withPath = state.length + 3 + version.length + path.length + tail.length + right.length <= columns;
  return (
    <Text wrap="truncate-end">
      <Text color={STATE_COLOR[kernel.state] ?? 'gray'}>{state}</Text>
      <Text dimColor>
        {' │ '}
        {version}
        {withPath ? path : ''}
        {tail}
      </Text>
      {message ? <Text color="yellow">{message}</Text> : <Text dimColor>{HINTS}</Text>}
    </Text>
  );
}
