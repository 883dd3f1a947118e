/** Hints for command-line mistakes that have an obvious meaning (commander reports the mistake). */

const SCRIPT = /\.(py|ipy|ipynb|[cm]?js)$/i;

/** The first word of `args` that names a script (not a flag, nor a flag's value). */
const scriptIn = (args: readonly string[]) => args.find((a) => !a.startsWith('-') && SCRIPT.test(a));

/** What the user probably meant, for a command-line error (or nothing). */
export function hintFor(error: string, argv: readonly string[]): string {
  const script = scriptIn(argv);
  if (/too many arguments/.test(error) && script && !argv.includes('run'))
    return `To run a script: omp-eval run ${script}\n`;
  const option = /unknown option '([^']+)'/.exec(error)?.[1];
  const run = argv.indexOf('run');
  const file = run >= 0 ? scriptIn(argv.slice(run + 1)) : undefined;
  if (option && file && argv.indexOf(option) > argv.indexOf(file))
    return `The script's own options go after --: omp-eval run ${file} -- ${argv.slice(argv.indexOf(file) + 1).join(' ')}\n`;
  return '';
}
