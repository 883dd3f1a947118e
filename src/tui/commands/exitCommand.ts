import type { SlashCommand } from './types.js';

export const exitCommand: SlashCommand = {
  name: 'exit',
  aliases: ['quit'],
  description: 'quit (also Ctrl-D on an empty prompt, or Ctrl-C twice)',
  run: (ctx) => ctx.exit(),
};
