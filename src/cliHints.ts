/** Hints for command-line mistakes that have an obvious meaning (commander reports the mistake). */

const SCRIPT = /\.(py|ipy|ipynb|[cm]?js)$/i;

/** What the user probably meant, for a command-line error (or nothing). */
export function hintFor(error: string, argv: readonly string[]): string {
  const script = argv.find((a) => !a.startsWith('-') && SCRIPT.test(a));
  if (/too many arguments/.test(error) && script && !argv.includes('run'))
    return `To run a script: omp-eval run ${script}\n`;
  const option = /unknown option '([^']+)'/.exec(error)?.[1];
  const run = argv.indexOf('run');
  // (the script: the first word after run that names one, not a flag's value)
  const file = run >= 0 ? argv.slice(run + 1).find((a) => !a.startsWith('-') && SCRIPT.test(a)) : undefined;
  if (option && file && argv.indexOf(option) > argv.indexOf(file))
    return `The script's own options go after --: omp-eval run ${file} -- ${argv.slice(argv.indexOf(file) + 1).join(' ')}\n`;
  return '';
}
