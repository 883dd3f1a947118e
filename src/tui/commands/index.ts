/** The `/` commands, one file each, and how a typed line finds its command. */
import { clearCommand } from './clearCommand.js';
import { exitCommand } from './exitCommand.js';
import { helpCommand } from './helpCommand.js';
import { restartCommand } from './restartCommand.js';
import { saveCommand, saveOverCommand } from './saveCommand.js';
import { serveCommand } from './serveCommand.js';
import type { CommandContext, SlashCommand } from './types.js';

export const COMMANDS: readonly SlashCommand[] = [
  helpCommand,
  restartCommand,
  clearCommand,
  saveCommand,
  saveOverCommand,
  serveCommand,
  exitCommand,
];

/** Whether a line typed at the prompt is a command (a `/` and a name, on one line). */
export const isCommandLine = (text: string) => /^\/[\w?]*!?(\s|$)/.test(text) && !text.includes('\n');

/** Runs the command a line names, or says there is none. */
export async function runCommandLine(
  line: string,
  ctx: Omit<CommandContext, 'args' | 'commands'>,
): Promise<void> {
  const [name = '', ...rest] = line.slice(1).trim().split(/\s+/);
  const command = COMMANDS.find((c) => c.name === name || c.aliases?.includes(name));
  if (!command) {
    ctx.print(`Unknown command /${name}. Type /help for the list.`);
    return;
  }
  const args = rest.join(' ');
  // (`/restart py` restarting every kernel, or `/exit now` leaving, would do more than was asked)
  if (args && !command.usage) {
    ctx.print(`/${name} takes no arguments: nothing was done (/help lists the commands).`);
    return;
  }
  await command.run({ ...ctx, args, commands: COMMANDS });
}
