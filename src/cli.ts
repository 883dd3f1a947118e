/**
 * The omp-eval command line. Commands parse their flags here and hand over to a front end.
 */
import { Command, InvalidArgumentError } from 'commander';
import { PythonKernel } from './eval/kernel.js';
import { PythonNotFoundError, resolvePython } from './eval/runtime.js';
import { runPlainRepl } from './repl/plainRepl.js';

const program = new Command();

function directory(value: string): string {
  if (!value.trim()) throw new InvalidArgumentError('must not be empty');
  return value;
}

program
  .name('omp-eval')
  .description('A notebook in the terminal for Python, backed by a retained Python kernel.')
  .version('0.1.0')
  .option('--python <path>', 'Python interpreter to use (skips discovery)')
  .option('--cwd <dir>', 'working directory of the kernel', directory, process.cwd())
  .showHelpAfterError()
  .action(async (opts: { python?: string; cwd: string }) => {
    process.exitCode = await runPlainRepl({ python: opts.python, cwd: opts.cwd });
  });

program
  .command('doctor')
  .description('resolve the Python interpreter, start a kernel and report what was found')
  .action(async () => {
    const { python, cwd } = program.opts<{ python?: string; cwd: string }>();
    try {
      const resolved = await resolvePython({ interpreter: python, cwd });
      process.stdout.write(
        `interpreter: ${resolved.executable} (Python ${resolved.version.join('.')}, from ${resolved.source})\n`,
      );
      const started = performance.now();
      const kernel = await PythonKernel.start({ resolved, cwd });
      process.stdout.write(
        `kernel: ready in ${Math.round(performance.now() - started)} ms (pid ${kernel.pid})\n`,
      );
      await kernel.shutdown();
    } catch (err) {
      const message = err instanceof PythonNotFoundError ? err.message : `error: ${(err as Error).message}`;
      process.stderr.write(`${message}\n`);
      process.exitCode = 1;
    }
  });

await program.parseAsync(process.argv);
