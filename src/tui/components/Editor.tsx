/** The prompt: the editor's lines with IPython's `In [n]:` and `...:` prefixes and a cursor. */
import { Box, Text } from 'ink';
import type { ReactNode } from 'react';
import type { EditorState } from '../lib/editor.js';
import { highlightPython } from '../lib/highlight.js';

export interface EditorProps {
  editor: EditorState;
  counter: number;
  color: boolean;
  /** Ctrl-R search in progress. */
  search?: { query: string; match?: string };
}

function withCursor(line: string, col: number): ReactNode {
  const at = line[col] ?? ' ';
  return (
    <>
      {line.slice(0, col)}
      <Text inverse>{at}</Text>
      {line.slice(col + 1)}
    </>
  );
}

export function Editor({ editor, counter, color, search }: EditorProps): ReactNode {
  const prompt = `In [${counter}]: `;
  const more = `${' '.repeat(Math.max(0, prompt.length - 5))}...: `;
  if (search) {
    return (
      <Text wrap="truncate-end">
        <Text color="cyan">(reverse-i-search)`{search.query}': </Text>
        {search.match ?? ''}
      </Text>
    );
  }
  return (
    <Box flexDirection="column">
      {editor.lines.map((line, row) => (
        <Text key={row} wrap="truncate-end">
          <Text color="green">{row === 0 ? prompt : more}</Text>
          {row === editor.row ? withCursor(line, editor.col) : highlightPython(line, color)}
        </Text>
      ))}
    </Box>
  );
}

/** input() waiting in the running cell: its prompt and what is typed (hidden for getpass). */
export function InputLine({
  prompt,
  value,
  password,
}: {
  prompt: string;
  value: string;
  password: boolean;
}): ReactNode {
  return (
    <Text wrap="truncate-end">
      <Text color="cyan">{prompt}</Text>
      {password ? '•'.repeat(value.length) : value}
      <Text inverse> </Text>
    </Text>
  );
}
