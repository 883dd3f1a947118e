/**
 * Starts the notebook in the terminal and owns its one shutdown path: unmount Ink (restoring the
 * terminal), then shut the kernels down; SIGTERM and SIGHUP take the same path.
 */
import chalk from 'chalk';
import { render } from 'ink';
import type { CellLanguage, Executor } from '../eval/index.js';
import { App } from './App.js';
import { executorBackend } from './backend.js';
import { historyPath } from './lib/history.js';
import { type ImageMode, resolveImageMode } from './lib/images.js';
import { dropStaleFrames } from './lib/inkStaleFrame.js';
import { queryImageProtocol } from './lib/terminalQuery.js';

export interface NotebookOptions {
  cwd: string;
  images: ImageMode;
  /** Seconds per cell (--timeout); none by default. */
  timeout?: number;
  /** The language of cells without a `%%js` / `%%py` line (--lang). */
  language?: CellLanguage;
}

const BRACKETED_PASTE_ON = '\x1b[?2004h';
const BRACKETED_PASTE_OFF = '\x1b[?2004l';

export async function runNotebook(executor: Executor, opts: NotebookOptions): Promise<number> {
  const backend = await executorBackend(executor, {
    cwd: opts.cwd,
    ...(opts.timeout !== undefined ? { timeout: opts.timeout } : {}),
    ...(opts.language ? { language: opts.language } : {}),
  });
  if (process.env.NO_COLOR) chalk.level = 0; // https://no-color.org
  const color = chalk.level > 0;
  let imageMode = resolveImageMode(opts.images, process.env, color);
  // `auto`: the terminal itself says whether it speaks kitty's or iTerm2's protocol.
  if (opts.images === 'auto' && color && !process.env.TMUX) {
    imageMode = (await queryImageProtocol(process.stdin, process.stdout)) ?? imageMode;
  }
  let finish!: () => void;
  const finished = new Promise<void>((resolve) => {
    finish = resolve;
  });
  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      process.stdout.write(BRACKETED_PASTE_OFF);
      instance.unmount();
      await backend.dispose();
      finish();
    })();
    return stopping;
  };
  process.stdout.write(BRACKETED_PASTE_ON);
  const instance = render(
    <App
      backend={backend}
      imageMode={imageMode}
      color={color}
      historyFile={historyPath()}
      onExit={() => void stop()}
    />,
    { exitOnCtrlC: false, patchConsole: false },
  );
  await dropStaleFrames(process.stdout);
  const onSignal = () => {
    void stop().then(() => process.exit(143));
  };
  process.once('SIGTERM', onSignal);
  process.once('SIGHUP', onSignal);
  await finished;
  process.off('SIGTERM', onSignal);
  process.off('SIGHUP', onSignal);
  return 0;
}
