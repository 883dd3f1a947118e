import { COMMANDS } from '../../src/tui/commands/index.js';
import type { CommandContext } from '../../src/tui/commands/types.js';
import type { CellView } from '../../src/tui/state/reducer.js';

/** A command's context that records what the command did. */
export function commandContext(args = '', cells: CellView[] = []) {
  const did = {
    printed: [] as string[],
    messages: [] as (string | undefined)[],
    restarts: 0,
    clears: 0,
    exits: 0,
  };
  const ctx: CommandContext = {
    args,
    print: (text) => did.printed.push(text),
    setMessage: (text) => did.messages.push(text),
    restartKernel: async () => {
      did.restarts++;
    },
    clearScreen: () => did.clears++,
    cells: () => cells,
    session: { language: 'py', pythonVersion: '3.11.7', nodeVersion: '20.0.0' },
    exit: () => did.exits++,
    cwd: () => process.cwd(),
    commands: COMMANDS,
    columns: 80,
  };
  return { ctx, did };
}
