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

  it('a command that takes no arguments, given some, does nothing and says so', async () => {
    const { ctx, did } = commandContext();
    await runCommandLine('/exit now', ctx);
    await runCommandLine('/restart py', ctx);
    await runCommandLine('/clear all', ctx);
    expect([did.exits, did.restarts, did.clears]).toEqual([0, 0, 0]);
    expect(did.printed[1]).toBe('/restart takes no arguments: nothing was done (/help lists the commands).');
    await runCommandLine('/restart  ', ctx); // (spaces are no arguments)
    expect(did.restarts).toBe(1);
  });
});
