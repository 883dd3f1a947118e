/** Hints for command-line mistakes that have an obvious meaning (commander reports the mistake). */

const SCRIPT = /\.(py|ipy|ipynb|[cm]?js)$/i;

/** The first word of `args` that names a script (not a flag, nor a flag's value). */
const scriptIn = (args: readonly string[]) => args.find((a) => !a.startsWith('-') && SCRIPT.test(a));

/** What the user probably meant, for a command-line error (or nothing). */
export function hintFor(error: string, argv: readonly string[]): string {
  const script = scriptIn(argv);
  if (/too many arguments|unknown command/.test(error) && script && !argv.includes('run'))
    return `To run a script: omp-eval run ${script}\n`;
  const option = /unknown option '([^']+)'/.exec(error)?.[1];
  const run = argv.indexOf('run');
  const file = run >= 0 ? scriptIn(argv.slice(run + 1)) : undefined;
  if (option && file && argv.indexOf(option) > argv.indexOf(file))
    return `The script's own options go after --: omp-eval run ${file} -- ${argv.slice(argv.indexOf(file) + 1).join(' ')}\n`;
  return '';
}

/** Edits from `a` to `b`: inserting, deleting or replacing a letter, or swapping two neighbours. */
export function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  const at = (i: number, j: number) => d[i]?.[j] as number;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      let best = Math.min(
        at(i - 1, j) + 1,
        at(i, j - 1) + 1,
        at(i - 1, j - 1) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, at(i - 2, j - 2) + 1);
      (d[i] as number[])[j] = best;
    }
  }
  return at(a.length, b.length);
}

/** The command `word` was probably meant to be: one edit away (two for a long name), or its start. */
export function nearestCommand(word: string, names: readonly string[]): string | undefined {
  const lower = word.toLowerCase();
  const scored = names
    .map((name) => ({
      name,
      d: lower.length >= 2 && name.startsWith(lower) ? 0.5 : editDistance(lower, name),
    }))
    .filter(({ d, name }) => d <= (name.length > 4 ? 2 : 1))
    .sort((x, y) => x.d - y.d);
  return scored[0]?.name;
}

/** What commander's commands look like here (a structural type: no import of commander's). */
interface CommandLike {
  name(): string;
  readonly commands: readonly CommandLike[];
  outputHelp(): void;
  error(message: string, opts?: { exitCode?: number; code?: string }): never;
  addHelpText(position: 'after', text: string): unknown;
}

/**
 * Words where the root expects a command: `help [command]` prints that help; anything else is an
 * unknown command, named, with the nearest command when one is near.
 */
export function unknownCommand(root: CommandLike, words: readonly string[]): void {
  const [word = '', topic] = words;
  const names = [...root.commands.map((c) => c.name()), 'help'];
  if (word === 'help') {
    const command = root.commands.find((c) => c.name() === topic);
    if (topic && !command) root.error(`error: no command '${topic}' (commands: ${names.join(', ')})`);
    (command ?? root).outputHelp();
    return;
  }
  const near = nearestCommand(word, names);
  const hint = near ? ` (did you mean '${near}'?)` : ` (commands: ${names.join(', ')})`;
  root.error(`error: unknown command '${word}'${hint}`, { code: 'omp-eval.unknownCommand' });
}

/**
 * Each command's help shows its own options, and says where the global ones are rather than
 * repeating them all.
 */
export function pointToGlobalOptions(root: CommandLike): void {
  const visit = (command: CommandLike) => {
    for (const sub of command.commands) {
      sub.addHelpText(
        'after',
        `\nGlobal options (--python, --cwd, --timeout, --sandbox, ...) go before or after the command: omp-eval --help lists them.`,
      );
      visit(sub);
    }
  };
  visit(root);
}
