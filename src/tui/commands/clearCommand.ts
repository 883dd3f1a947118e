import type { SlashCommand } from './types.js';

export const clearCommand: SlashCommand = {
  name: 'clear',
  description: 'clear the screen (the scroll-back keeps the transcript)',
  run: (ctx) => ctx.clearScreen(),
};
