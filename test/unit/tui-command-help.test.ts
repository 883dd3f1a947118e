import { describe, expect, it } from 'vitest';
import { helpCommand } from '../../src/tui/commands/helpCommand.js';
import { COMMANDS } from '../../src/tui/commands/index.js';
import { KEY_BINDINGS } from '../../src/tui/keys/keyBindings.js';
import { commandContext } from '../helpers/commandContext.js';

describe('/help', () => {
  it('lists every command and every described key from their definitions', async () => {
    const { ctx, did } = commandContext();
    await helpCommand.run(ctx);
    const text = did.printed.join('\n');
    for (const command of COMMANDS) expect(text).toContain(`/${command.name}`);
    for (const binding of KEY_BINDINGS) if (binding.description) expect(text).toContain(binding.description);
  });
});
