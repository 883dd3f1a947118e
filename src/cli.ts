/**
 * The omp-eval command line: parses commands and flags, loads the settings, and hands over to a
 * front end (line mode, `run`, `tool`, `setup`).
 */
import { Command, Option } from 'commander';
import { hintFor, pointToGlobalOptions, unknownCommand } from './cliHints.js';
import { deferredLogger, endOnBrokenPipe, exitWhenFlushed, knownError } from './cliProcess.js';
import { count, listenAddress, nonEmpty, seconds } from './cliValues.js';
// Types only: each command loads the modules it uses when it runs (`--version` loads none, `run`
// and `tool` never load the notebook's Ink, React, highlighting or image libraries).
import type { Executor, Face, Language, Logger, Settings } from './eval/index.js';
import type { PrestartedKernel } from './eval/start.js';
import { takeEarly } from './modes/early.js';
import type { ClientName as McpClientName } from './modes/mcp/printConfig.js';
import { addSandboxOptions, type SandboxFlags, sandboxOverrides } from './modes/sandboxFlags.js';
import type { ImageMode } from './tui/rendering/images.js';
import { VERSION } from './version.js';

interface GlobalFlags extends SandboxFlags {
  python?: string;
  cwd: string;
  kernelMode?: 'session' | 'per-call';
  timeout?: number;
  images: ImageMode;
  lang?: Language;
  passEnv?: string[];
  envFilter?: 'on' | 'off';
  agentCommand?: string;
  completionCommand?: string;
  jupyter?: string;
  token?: string;
  kernelName?: string;
  kernelId?: string;
  serveMcp?: string | true;
}

interface McpFlags {
  http?: string;
  idleTimeout?: number;
  maxSessions?: number;
  maxKernels?: number;
  printConfig?: McpClientName;
}

const program = new Command();
program
  .name('omp-eval')
  .description('A notebook in the terminal for Python (and JavaScript), backed by retained kernels.')
  .version(VERSION)
  .option('--python <path>', 'Python interpreter to use (skips discovery)', nonEmpty)
  .option('--cwd <dir>', 'working directory of the kernel', nonEmpty, process.cwd())
  .addOption(
    new Option('--kernel-mode <mode>', 'keep one kernel per session, or a fresh one per call').choices([
      'session',
      'per-call',
    ]),
  )
  .option('--timeout <seconds>', 'timeout per cell (default: none for scripts, 30 for the tool)', seconds)
  .option('--agent-command <cmd>', "the command that runs a cell's agent() calls (JSON on stdin)", nonEmpty)
  .option('--completion-command <cmd>', "the command that answers a cell's completion() calls", nonEmpty)
  .option(
    '--pass-env <name>',
    'pass this host variable to the kernel although the filter drops it (repeatable)',
    (name: string, previous: string[] = []) => [...previous, name],
  )
  .addOption(
    new Option(
      '--env-filter <on|off>',
      "the spec's environment filter for kernels (default: off for the notebook, line mode and run; on for tool and mcp)",
    ).choices(['on', 'off']),
  )
  .addOption(
    new Option(
      '--lang <language>',
      'language of cells without a %%js or %%py first line (default py)',
    ).choices(['py', 'js']),
  )
  .option(
    '--jupyter <url>',
    'run Python cells in a kernel on this Jupyter server (or JupyterHub, Gateway)',
    nonEmpty,
  )
  .option('--token <token>', "the Jupyter server's token (default: $JUPYTER_TOKEN)")
  .option(
    '--kernel-name <name>',
    'the kernelspec to start on the Jupyter server (default: its default)',
    nonEmpty,
  )
  .option(
    '--kernel-id <id>',
    'attach to this running kernel on the Jupyter server, its state intact',
    nonEmpty,
  )
  .option(
    '--serve-mcp [host:port]',
    'the notebook serves its kernels to agents over MCP (Streamable HTTP on loopback, bearer token; default 127.0.0.1 on a free port); /serve in the notebook does it later',
    listenAddress,
  )
  .addOption(
    new Option('--images <mode>', 'how the notebook shows images')
      .choices(['auto', 'kitty', 'iterm', 'blocks', 'off'])
      .default('auto'),
  )
  // Global flags are taken before or after a command (`omp-eval run f.js --timeout 5`).
  // A mistake gets its error, a hint when one fits, and where the help is (not all of it).
  .showHelpAfterError(
    "(omp-eval --help lists the commands and flags; omp-eval <command> --help, a command's)",
  )
  .configureOutput({ outputError: (text, write) => write(`${text}${hintFor(text, process.argv.slice(2))}`) });

addSandboxOptions(program);

/**
 * The settings of defaults, config file and flags; `sandbox`: the command's default sandbox mode;
 * `face`: who drives the command, whose default decides the environment filter (envFilter.ts).
 */
async function settingsFrom(flags: GlobalFlags, sandbox?: 'workspace-write', face?: Face): Promise<Settings> {
  const { envFilterOf, loadSettings, sandboxOf } = await import('./eval/start.js');
  const overrides: Partial<Settings> = {};
  if (flags.python) overrides['python.interpreter'] = flags.python;
  if (flags.kernelMode) overrides['python.kernelMode'] = flags.kernelMode;
  if (flags.timeout !== undefined) overrides['eval.timeout'] = flags.timeout;
  if (flags.passEnv?.length) overrides['env.pass'] = flags.passEnv;
  if (flags.envFilter) overrides['env.filter'] = flags.envFilter === 'on';
  if (flags.agentCommand) overrides['bridge.agentCommand'] = flags.agentCommand;
  if (flags.completionCommand) overrides['bridge.completionCommand'] = flags.completionCommand;
  if (flags.jupyter) overrides['jupyter.url'] = flags.jupyter;
  if (flags.token !== undefined) overrides['jupyter.token'] = flags.token;
  if (flags.kernelName) overrides['jupyter.kernelName'] = flags.kernelName;
  if (flags.kernelId) overrides['jupyter.kernelId'] = flags.kernelId;
  const settings = loadSettings({ ...overrides, ...sandboxOverrides(flags) });
  if (sandbox) settings['sandbox.mode'] = sandboxOf(settings, process.env, sandbox).mode;
  if (face) settings['env.filter'] = envFilterOf(settings, face).on;
  return settings;
}

/**
 * Runs a front end with an executor, turning the errors a user can cause into one clear line (a
 * JSON object for `tool`, whose output is read by programs). The engine's warnings go to `logger`.
 * `prestart`: the front end's first kernel is probably a local Python one, whose process is then
 * spawned before the engine loads (it starts meanwhile; the executor stops it if unused).
 * `exitWhenDone`: the process ends once the front end is done and its output flushed.
 */
async function withExecutor(
  flags: GlobalFlags,
  body: (executor: Executor) => Promise<number>,
  opts: {
    /** Who drives the command (the environment filter's default). */
    face: Face;
    json?: boolean;
    logger?: Logger;
    brokenPipe?: 'exit' | 'front end';
    prestart?: boolean;
    exitWhenDone?: boolean;
  },
): Promise<void> {
  const { prestartPython, SettingsError, streamLogger } = await import('./eval/start.js');
  let executor: Executor | undefined;
  let prestarted: PrestartedKernel | undefined;
  let terminated: number | undefined;
  const stop = (signal: NodeJS.Signals) => {
    terminated = signal === 'SIGHUP' ? 129 : 143;
    process.exitCode = terminated;
    const code = terminated;
    // The cells it stops say why; the tool then gets a moment to print its result.
    void (executor?.dispose(`omp-eval received ${signal}`) ?? Promise.resolve()).finally(() => {
      setTimeout(() => process.exit(code), opts.json ? 2_000 : 0).unref();
    });
  };
  process.once('SIGTERM', stop);
  process.once('SIGHUP', stop);
  if (opts.brokenPipe !== 'front end') endOnBrokenPipe();
  try {
    const settings = await settingsFrom(flags, undefined, opts.face);
    const logger = opts.logger ?? streamLogger(process.stderr);
    // Kernels and commands get the environment omp-eval was started with, whatever the front end
    // does with its own afterwards.
    const hostEnv = { ...process.env };
    if (opts.prestart)
      prestarted = takeEarly() ?? (await prestartPython(settings, { cwd: flags.cwd, hostEnv, logger }));
    const { createExecutor } = await import('./eval/index.js');
    executor = createExecutor({ settings, logger, hostEnv, ...(prestarted ? { prestarted } : {}) });
    const code = await body(executor);
    process.exitCode = terminated ?? code;
  } catch (err) {
    const known = await knownError(err);
    const message = known ? (err as Error).message : ((err as Error).stack ?? String(err));
    if (opts.json) process.stdout.write(`${JSON.stringify({ error: message, isError: true })}\n`);
    else process.stderr.write(`omp-eval: ${message}\n`);
    process.exitCode = known && err instanceof SettingsError ? 2 : 1;
  } finally {
    await executor?.dispose();
    prestarted?.discard(); // (when no executor was made)
  }
  if (opts.exitWhenDone) await exitWhenFlushed();
}

program.action(async () => {
  // A word where a command goes is no command: say so (not "too many arguments"), with the nearest.
  if (program.args.length) return unknownCommand(program, program.args);
  const flags = program.opts<GlobalFlags>();
  // The notebook needs a terminal; piped input gets the line mode.
  const interactive = process.stdin.isTTY === true && process.stdout.isTTY === true;
  if (!interactive) {
    const { runRepl } = await import('./modes/repl.js');
    await withExecutor(
      flags,
      (executor) =>
        runRepl(executor, {
          cwd: flags.cwd,
          ...(flags.lang ? { language: flags.lang } : {}),
          ...(flags.timeout !== undefined ? { timeout: flags.timeout } : {}),
        }),
      { face: 'line' },
    );
    return;
  }
  const [{ runNotebook }, { servedBackend }] = await Promise.all([
    import('./tui/index.js'),
    import('./modes/serve/servedBackend.js'),
  ]);
  const deferred = deferredLogger();
  const serveAtStart =
    flags.serveMcp === undefined ? undefined : flags.serveMcp === true ? '' : flags.serveMcp;
  try {
    await withExecutor(
      flags,
      (executor) =>
        runNotebook(executor, {
          cwd: flags.cwd,
          images: flags.images,
          ...(flags.timeout !== undefined ? { timeout: flags.timeout } : {}),
          ...(flags.lang ? { language: flags.lang } : {}),
          serve: (backend) =>
            servedBackend(backend, {
              executor,
              cwd: flags.cwd,
              language: flags.lang ?? 'py',
              env: process.env,
              ...(serveAtStart !== undefined ? { serveAtStart } : {}),
            }),
        }),
      // (a terminal that went away ends the notebook through its own handler, which shuts its
      // kernels down as Python's own end would: atexit runs)
      // (a notebook whose kernels an MCP client shares is an agent's face: 'notebook-mcp', filtered)
      {
        face: serveAtStart === undefined ? 'notebook' : 'notebook-mcp',
        logger: deferred.logger,
        brokenPipe: 'front end',
      },
    );
  } finally {
    deferred.flush();
  }
});

program
  .command('run')
  .description(
    'run a script cell by cell (cells split on "# %%" lines, "// %%" in .js files); "-" reads stdin',
  )
  .argument('<file>', 'the script, or - for standard input')
  .argument('[args...]', "the script's arguments (after --, those that start with -)")
  .action(async (file: string, args: string[]) => {
    const flags = program.opts<GlobalFlags>();
    await withExecutor(
      flags,
      // (loaded after the kernel's process was spawned: it loads the engine)
      async (executor) =>
        (await import('./modes/run.js')).runScript(executor, {
          file,
          args,
          cwd: flags.cwd,
          ...(flags.timeout !== undefined ? { timeout: flags.timeout } : {}),
          ...(flags.lang ? { language: flags.lang } : {}),
        }),
      {
        face: 'run',
        prestart: (flags.lang ?? (/\.[cm]?js$/i.test(file) ? 'js' : 'py')) === 'py',
        exitWhenDone: true,
      },
    );
  });

program
  .command('tool')
  .description(
    'run the eval tool: {"cells": [{"language": "py", "code": "..."}]} on stdin, JSON result on stdout',
  )
  .action(async () => {
    const flags = program.opts<GlobalFlags>();
    await withExecutor(
      flags,
      async (executor) => (await import('./modes/tool.js')).runToolCommand(executor, { cwd: flags.cwd }),
      { face: 'tool', json: true, prestart: true, exitWhenDone: true },
    );
  });

program
  .command('mcp')
  .description('serve the retained kernels over MCP (stdio; --http for Streamable HTTP on loopback)')
  .option('--http <host:port>', 'serve Streamable HTTP on a loopback address (bearer token required)')
  .option('--idle-timeout <seconds>', 'shut down an HTTP session idle this long (default 1800)', seconds)
  .option('--max-sessions <n>', "sessions at once, all clients' together (default 16)", count)
  .option('--max-kernels <n>', "kernels at once, all clients' together (default 32)", count)
  .addOption(
    new Option('--print-config <client>', "print a client's configuration snippet").choices([
      'claude',
      'claude-desktop',
      'codex',
      'cursor',
      'gemini',
      'vscode',
    ]),
  )
  .action(async (opts: McpFlags) => {
    const flags = program.opts<GlobalFlags>();
    const { runMcpCommand } = await import('./modes/mcp/command.js');
    const settings = () => settingsFrom(flags, 'workspace-write', 'mcp'); // agents' code runs sandboxed
    process.exitCode = await runMcpCommand({ ...opts, settings, cwd: flags.cwd });
  });

program
  .command('attach')
  .description("follow an agent's omp-eval mcp session in the notebook (--list: the live sessions)")
  .argument('[session]', 'the session: its ID (from --list), or its name when only one has it')
  .option('--list', 'list the live omp-eval mcp servers and their sessions')
  .action(async (session: string | undefined, opts: { list?: boolean }) => {
    const flags = program.opts<GlobalFlags>();
    const { runAttach } = await import('./modes/share/attach.js');
    process.exitCode = await runAttach({
      ...(session !== undefined ? { session } : {}),
      ...(opts.list ? { list: true } : {}),
      images: flags.images,
    });
  });

const setup = program.command('setup').description('check or prepare a runtime');
setup
  .command('python')
  .description('report the Python interpreter omp-eval uses')
  .option('--check', 'the same: print the resolved interpreter and every candidate that was skipped')
  .action(async () => {
    const flags = program.opts<GlobalFlags>();
    try {
      const { checkPython } = await import('./modes/setup.js');
      const { checkCwd } = await import('./eval/index.js');
      const settings = await settingsFrom(flags);
      const streams = { out: process.stdout, err: process.stderr };
      const python = await checkPython(
        { interpreter: settings['python.interpreter'], cwd: checkCwd(flags.cwd) },
        streams,
      );
      const { checkSandboxSetup } = await import('./modes/sandboxCheck.js');
      process.exitCode = Math.max(python, await checkSandboxSetup(settings, streams));
    } catch (err) {
      process.stderr.write(`omp-eval: ${(err as Error).message}\n`);
      process.exitCode = 2;
    }
  });

// (Set after the commands are made, which would inherit it: the root takes any words, to name the
// unknown command itself, while a command's extra words stay an error.)
program.allowExcessArguments(true);
pointToGlobalOptions(program);
// A command whose reader went away (`omp-eval setup python --check | head -1`) ends quietly, in
// every face; the notebook's terminal going away is its front end's to handle.
program.hook('preAction', (_root, command) => {
  if (command !== program) endOnBrokenPipe();
});
await program.parseAsync(process.argv);
