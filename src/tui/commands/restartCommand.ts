import type { SlashCommand } from './types.js';

export const restartCommand: SlashCommand = {
  name: 'restart',
  description: 'restart the kernels (their state is lost)',
  async run(ctx) {
    ctx.setMessage('Restarting the kernel…');
    try {
      await ctx.restartKernel();
      ctx.print('Kernel restarted: its state was lost.');
    } catch (err) {
      ctx.print(`The kernel could not be restarted: ${(err as Error).message}`);
    }
    ctx.setMessage();
  },
};
