import { describe, expect, it } from 'vitest';
import { exitCommand } from '../../src/tui/commands/exitCommand.js';
import { COMMANDS, isCommandLine, runCommandLine } from '../../src/tui/commands/index.js';
import { commandContext } from '../helpers/commandContext.js';

describe('/exit', () => {
  it('exits, also as /quit', async () => {
    const { ctx, did } = commandContext();
    await exitCommand.run(ctx);
    await runCommandLine('/quit', ctx);
    expect(did.exits).toBe(2);
  });

  it('is one of the commands a typed line finds; an unknown one is answered', async () => {
    expect(COMMANDS.map((c) => c.name)).toContain('exit');
    expect(isCommandLine('/exit')).toBe(true);
    expect(isCommandLine('/exit\nmore')).toBe(false);
    const { ctx, did } = commandContext();
    await runCommandLine('/nope', ctx);
    expect(did.printed).toEqual(['Unknown command /nope. Type /help for the list.']);
  });
});
