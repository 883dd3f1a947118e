import { describe, expect, it } from 'vitest';
import { COMMANDS, runCommandLine } from '../../src/tui/commands/index.js';
import { serveCommand } from '../../src/tui/commands/serveCommand.js';
import { commandContext } from '../helpers/commandContext.js';

describe('/serve', () => {
  it("hands its arguments to the backend's serving and prints what it says", async () => {
    const { ctx, did } = commandContext();
    const asked: string[] = [];
    const { args: _a, commands: _m, ...base } = ctx;
    await runCommandLine('/serve   off ', {
      ...base,
      serve: async (args) => {
        asked.push(args);
        return 'Stopped serving.';
      },
    });
    await runCommandLine('/serve', { ...base, serve: async (args) => `serving (${args || 'no address'})` });
    expect(asked).toEqual(['off']);
    expect(did.printed).toEqual(['Stopped serving.', 'serving (no address)']);
  });

  it('says why it cannot serve, or why serving failed', async () => {
    const { ctx, did } = commandContext();
    await serveCommand.run(ctx);
    ctx.serve = () => Promise.reject(new Error('listen EADDRINUSE: address already in use 127.0.0.1:8765'));
    await serveCommand.run(ctx);
    expect(did.printed).toEqual([
      '/serve is not available here: this notebook follows a session that is not its own.',
      '/serve failed: listen EADDRINUSE: address already in use 127.0.0.1:8765',
    ]);
  });

  it('is listed among the commands /help shows', () => {
    expect(COMMANDS).toContain(serveCommand);
  });
});
