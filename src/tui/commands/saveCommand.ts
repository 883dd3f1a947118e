import { saveSession } from '../lib/save.js';
import type { SlashCommand } from './types.js';

export const saveCommand: SlashCommand = {
  name: 'save',
  usage: 'FILE',
  description: 'save the session: FILE.ipynb as a Jupyter notebook with outputs, else a "# %%" script',
  run(ctx) {
    const file = ctx.args.trim();
    if (!file) {
      ctx.print('usage: /save FILE.py or /save FILE.ipynb');
      return;
    }
    try {
      const kind = saveSession(file, ctx.cells(), ctx.session);
      ctx.print(`Saved the session as a ${kind}: ${file}`);
    } catch (err) {
      ctx.print(`Could not save ${file}: ${(err as Error).message}`);
    }
  },
};
