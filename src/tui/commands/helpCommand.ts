import { keysHelp } from '../keys/keyBindings.js';
import type { CommandContext, SlashCommand } from './types.js';

/** The help text: every command and every described key binding, from their definitions. */
export function helpText(all: readonly SlashCommand[]): string {
  const commands = all.filter((c) => !c.inHelpOf);
  const names = commands.map((c) => `/${c.name}${c.usage ? ` ${c.usage}` : ''}`);
  const width = Math.max(...names.map((n) => n.length)) + 2;
  return [
    'Commands (type them at the prompt):',
    ...commands.map((c, i) => `  ${(names[i] as string).padEnd(width)}${c.description}`),
    'Keys:',
    ...keysHelp(),
    'Pasting a script with "# %%" lines runs each part as its own cell.',
  ].join('\n');
}

export const helpCommand: SlashCommand = {
  name: 'help',
  aliases: ['?'],
  description: 'this help',
  run: (ctx: CommandContext) => ctx.print(helpText(ctx.commands)),
};
