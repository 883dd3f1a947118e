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

export function shortPath(path: string): string {
  const home = homedir();
  return path === home ? '~' : path.startsWith(`${home}/`) ? `~${path.slice(home.length)}` : path;
}

export function StatusLine({ kernel, message }: { kernel: KernelInfo; message?: string }): ReactNode {
  const state = kernel.state === 'none' ? 'no kernel' : kernel.state;
  return (
    <Text wrap="truncate-end">
      <Text color={STATE_COLOR[kernel.state] ?? 'gray'}>● {state}</Text>
      <Text dimColor>
        {' │ '}
        {kernel.version ? `Python ${kernel.version}` : 'Python'}
        {kernel.python ? ` (${shortPath(kernel.python)})` : ''}
        {' │ '}
        {shortPath(kernel.cwd)}
        {' │ '}
        {kernel.mode}
        {' │ '}[{kernel.executionCount}]
      </Text>
      <Text>{'  '}</Text>
      {message ? (
        <Text color="yellow">{message}</Text>
      ) : (
        <Text dimColor>/help · ctrl+o expand · ctrl+c interrupt</Text>
      )}
    </Text>
  );
}
