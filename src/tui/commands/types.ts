/** A `/` command: its name, the line /help shows, and what it does with the notebook. */
import type { Language, RemoteKernelInfo } from '../../eval/index.js';
import type { CellView } from '../state/reducer.js';

export interface CommandContext {
  /** What follows the command's name. */
  args: string;
  /** Prints a message into the transcript. */
  print: (text: string) => void;
  /** A short message on the status line (undefined clears it). */
  setMessage: (text?: string) => void;
  restartKernel: () => Promise<void>;
  clearScreen: () => void;
  /** The finished cells, in order. */
  cells: () => readonly CellView[];
  /** The notebook's default language and the runtimes' versions, for saving. */
  session: {
    language: Language;
    pythonVersion?: string;
    nodeVersion?: string;
    remote?: RemoteKernelInfo;
  };
  exit: () => void;
  /** The kernel's working directory, which `%cd` moves (as the status line shows it). */
  cwd: () => string;
  /** Every command, for /help. */
  commands: readonly SlashCommand[];
  /** The terminal's width, for text laid out in columns. */
  columns: number;
  /** Serving the kernels to agents (`/serve`); unset where the backend cannot (a followed session). */
  serve?: (args: string) => Promise<string>;
}

export interface SlashCommand {
  name: string;
  aliases?: readonly string[];
  /** The arguments, as /help writes them ("FILE"). */
  usage?: string;
  description: string;
  /** Described in this other command's line of /help, not on a line of its own. */
  inHelpOf?: string;
  run: (ctx: CommandContext) => void | Promise<void>;
}
