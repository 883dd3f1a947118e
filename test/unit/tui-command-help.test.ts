import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { helpCommand, helpText } from '../../src/tui/commands/helpCommand.js';
import { COMMANDS } from '../../src/tui/commands/index.js';
import { KEY_BINDINGS } from '../../src/tui/keys/keyBindings.js';
import { commandContext } from '../helpers/commandContext.js';

describe('/help', () => {
  it('lists every command and every described key from their definitions', async () => {
    const { ctx, did } = commandContext();
    await helpCommand.run(ctx);
    // (Long descriptions are wrapped over several lines.)
    const text = did.printed.join('\n').replace(/\s+/g, ' ');
    for (const command of COMMANDS) expect(text).toContain(`/${command.name}`);
    for (const binding of KEY_BINDINGS) if (binding.description) expect(text).toContain(binding.description);
  });

  it("in a JavaScript notebook, names Node's REPL commands too; not in a Python one", async () => {
    const { ctx, did } = commandContext();
    ctx.session = { ...ctx.session, language: 'js' };
    await helpCommand.run(ctx);
    expect(did.printed[0]?.replace(/\s+/g, ' ')).toContain('.load FILE (runs it), .save FILE');
    expect(helpText(COMMANDS, 80)).not.toContain('.load');
  });

  it('fits its width, with each description wrapped under its own start (a hanging indent)', () => {
    for (const columns of [60, 80, 120]) {
      const lines = helpText(COMMANDS, columns).split('\n');
      for (const line of lines) expect(stringWidth(line), line).toBeLessThanOrEqual(columns);
      // Ctrl-C's description is long: its later lines start where its first line's text starts.
      const at = lines.findIndex((l) => /^ {2}Ctrl-C +interrupt/.test(l));
      const first = lines[at] as string;
      const start = first.indexOf('interrupt');
      const next = lines[at + 1] as string;
      if (columns < 120) {
        expect(next.slice(0, start).trim()).toBe('');
        expect(next[start]).not.toBe(' ');
      }
    }
  });
});
