import { describe, expect, it } from 'vitest';
import { restartCommand } from '../../src/tui/commands/restartCommand.js';
import { commandContext } from '../helpers/commandContext.js';

describe('/restart', () => {
  it('restarts the kernel and says so in one line', async () => {
    const { ctx, did } = commandContext();
    await restartCommand.run(ctx);
    expect(did.restarts).toBe(1);
    expect(did.printed).toEqual(['Kernel restarted: its state was lost.']);
    expect(did.messages.at(-1)).toBeUndefined();
  });

  it('says why when the kernel cannot be restarted', async () => {
    const { ctx, did } = commandContext();
    ctx.restartKernel = () => Promise.reject(new Error('no python'));
    await restartCommand.run(ctx);
    expect(did.printed).toEqual(['The kernel could not be restarted: no python']);
  });
});
