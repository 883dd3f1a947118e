/**
 * Command-line mistakes with an obvious meaning get a hint after commander's error: a script
 * given without `run`, the script's own options before `--`.
 */
import { describe, expect, it } from 'vitest';
import { editDistance, hintFor, nearestCommand } from '../../src/cliHints.js';

describe('command-line hints', () => {
  it('says how to run a script given without run, and where the script’s options go', () => {
    const tooMany = 'error: too many arguments. Expected 0 arguments but got 1.\n';
    expect(hintFor(tooMany, ['analysis.py'])).toBe('To run a script: omp-eval run analysis.py\n');
    expect(hintFor(tooMany, ['--python', '/usr/bin/python3', 'nb.ipynb'])).toBe(
      'To run a script: omp-eval run nb.ipynb\n',
    );
    expect(hintFor(tooMany, ['hello'])).toBe('');
    const unknown = "error: unknown option '--n'\n";
    expect(hintFor(unknown, ['run', 'main.py', '--n', '3'])).toBe(
      "The script's own options go after --: omp-eval run main.py -- --n 3\n",
    );
    expect(hintFor(unknown, ['run', '--lang', 'py', 's.py', '--n'])).toBe(
      "The script's own options go after --: omp-eval run s.py -- --n\n",
    );
    // (an unknown option before the script is omp-eval's own mistake)
    expect(hintFor(unknown, ['run', '--n', 'main.py'])).toBe('');
  });
});

describe('an unknown command', () => {
  const names = ['run', 'tool', 'mcp', 'setup', 'help'];
  it('is near a command one edit away (two for a long name), a swap of neighbours counting one', () => {
    expect(editDistance('rnu', 'run')).toBe(1);
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(nearestCommand('rnu', names)).toBe('run');
    expect(nearestCommand('hlep', names)).toBe('help');
    expect(nearestCommand('mpc', names)).toBe('mcp');
    expect(nearestCommand('stup', names)).toBe('setup');
    expect(nearestCommand('se', names)).toBe('setup'); // (the start of a command)
    expect(nearestCommand('foo', names)).toBeUndefined(); // (two edits from tool: not near)
    expect(nearestCommand('analysis.py', names)).toBeUndefined();
  });
});
