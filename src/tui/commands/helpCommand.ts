import wrapAnsi from 'wrap-ansi';
import { keysHelp } from '../keys/keyBindings.js';
import type { CommandContext, SlashCommand } from './types.js';

/**
 * Entries as two columns, the labels padded to one width and each description wrapped beside
 * its label, its later lines indented under its first (a hanging indent) to fit `columns`.
 */
function table(entries: readonly [string, string][], columns: number): string[] {
  const width = Math.max(...entries.map(([label]) => label.length)) + 2;
  const room = Math.max(20, columns - 2 - width - 1);
  const indent = ' '.repeat(2 + width);
  return entries.map(
    ([label, text]) =>
      `  ${label.padEnd(width)}${wrapAnsi(text, room, { hard: true, trim: true }).split('\n').join(`\n${indent}`)}`,
  );
}

/** The help text: every command and every described key binding, from their definitions. */
export function helpText(all: readonly SlashCommand[], columns = 80, language = 'py'): string {
  const commands = all.filter((c) => !c.inHelpOf);
  const node =
    language === 'js'
      ? [
          wrapAnsi(
            "Node's REPL commands work as cells too: .exit, .help, .load FILE (runs it), .save FILE (the session's cells), .break (drops the cell being typed).",
            columns,
            { hard: true },
          ),
        ]
      : [];
  return [
    'Commands (type them at the prompt):',
    ...table(
      commands.map((c) => [`/${c.name}${c.usage ? ` ${c.usage}` : ''}`, c.description]),
      columns,
    ),
    'Keys:',
    ...table(keysHelp(), columns),
    wrapAnsi('Pasting a script with "# %%" lines runs each part as its own cell.', columns, { hard: true }),
    ...node,
  ].join('\n');
}

export const helpCommand: SlashCommand = {
  name: 'help',
  aliases: ['?'],
  description: 'this help',
  run: (ctx: CommandContext) => ctx.print(helpText(ctx.commands, ctx.columns, ctx.session.language)),
};
