import { describe, expect, it } from 'vitest';
import { clearCommand } from '../../src/tui/commands/clearCommand.js';
import { commandContext } from '../helpers/commandContext.js';

describe('/clear', () => {
  it('clears the screen and prints nothing', async () => {
    const { ctx, did } = commandContext();
    await clearCommand.run(ctx);
    expect(did.clears).toBe(1);
    expect(did.printed).toEqual([]);
  });
});
