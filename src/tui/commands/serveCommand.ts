import type { SlashCommand } from './types.js';

export const serveCommand: SlashCommand = {
  name: 'serve',
  usage: '[off]',
  description:
    "let an agent work in this notebook's kernels: MCP (HTTP on loopback, a bearer token); prints the URL and token. /serve HOST:PORT on a fixed port, /serve config CLIENT a client's configuration, /serve off stops",
  async run(ctx) {
    if (!ctx.serve) {
      ctx.print('/serve is not available here: this notebook follows a session that is not its own.');
      return;
    }
    try {
      ctx.print(await ctx.serve(ctx.args.trim()));
    } catch (err) {
      ctx.print(`/serve failed: ${(err as Error).message}`);
    }
  },
};
