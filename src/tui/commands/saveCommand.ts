import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { saveSession } from '../session/save.js';
import type { CommandContext, SlashCommand } from './types.js';

/** Saves the session; an existing file is replaced only when `replace` (`/save!`). */
function save(ctx: CommandContext, replace: boolean): void {
  // (a name in quotes, as a shell would take it: `/save "my nb.ipynb"`)
  const typed = ctx.args.trim().replace(/^(["'])(.*)\1$/, '$2');
  // `~/x.py` is in the home directory, as a shell (and IPython's %save) reads it.
  const file = typed === '~' || typed.startsWith('~/') ? join(homedir(), typed.slice(1)) : typed;
  const name = replace ? 'save!' : 'save';
  if (!file) {
    ctx.print(`usage: /${name} FILE.py or /${name} FILE.ipynb`);
    return;
  }
  // A relative name is under the kernel's working directory, as IPython's %save writes it after
  // %cd (a remote kernel's directory is on its server: there, the notebook's own).
  const base = ctx.session.remote ? process.cwd() : ctx.cwd();
  const path = isAbsolute(file) || base === process.cwd() ? file : resolve(base, file);
  try {
    const kind = saveSession(path, ctx.cells(), ctx.session, replace);
    ctx.print(`Saved the session as a ${kind}: ${path}`);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') {
      ctx.print(`${path} exists and was left as it is; /save! ${typed} replaces it`);
      return;
    }
    const code = (err as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT'
        ? `the folder ${dirname(path)} does not exist`
        : code === 'EACCES' || code === 'EPERM'
          ? 'permission denied'
          : code === 'EISDIR'
            ? 'it is a folder'
            : (err as Error).message;
    ctx.print(`Could not save ${path}: ${why}`);
  }
}

export const saveCommand: SlashCommand = {
  name: 'save',
  usage: 'FILE',
  description: 'save the session: FILE.ipynb with outputs, else a "# %%" script (/save! replaces FILE)',
  run: (ctx) => save(ctx, false),
};

export const saveOverCommand: SlashCommand = {
  name: 'save!',
  usage: 'FILE',
  description: 'save the session as /save does, replacing FILE if it exists',
  inHelpOf: 'save',
  run: (ctx) => save(ctx, true),
};
