/**
 * The early start's guess of the kernel a command line needs (modes/early.ts): a guess only (the
 * executor checks the process it is offered), but it must start nothing for commands that need no
 * local Python kernel, and read the flags that choose it.
 */
import { describe, expect, it } from 'vitest';
import { guessFace, guessPythonKernel } from '../../src/modes/early.js';

const cwd = '/work';

describe("the early start's guess", () => {
  it('is a local Python kernel for run of a Python script and for tool', () => {
    expect(guessPythonKernel(['run', 'x.py'], cwd)).toEqual({ cwd, passEnv: [], face: 'run' });
    expect(guessPythonKernel(['run', '-'], cwd)).toEqual({ cwd, passEnv: [], face: 'run' });
    expect(guessPythonKernel(['tool'], cwd)).toEqual({ cwd, passEnv: [], face: 'tool' });
    // Flags before and after the command, in both forms; the script's own arguments after --.
    expect(
      guessPythonKernel(
        [
          '--python',
          '/opt/py',
          'run',
          'x.py',
          '--cwd=/data',
          '--pass-env',
          'A',
          '--timeout',
          '5',
          '--',
          '--python',
          'no',
        ],
        cwd,
      ),
    ).toEqual({ python: '/opt/py', cwd: '/data', passEnv: ['A'], face: 'run' });
    expect(guessPythonKernel(['run', '--lang', 'py', 'x.txt'], cwd)).toEqual({
      cwd,
      passEnv: [],
      face: 'run',
    });
  });

  it('reads --env-filter, and leaves a value it does not know to the parser', () => {
    expect(guessPythonKernel(['--env-filter', 'on', 'run', 'x.py'], cwd)).toEqual({
      cwd,
      passEnv: [],
      envFilter: true,
      face: 'run',
    });
    expect(guessPythonKernel(['tool', '--env-filter=off'], cwd)).toMatchObject({
      envFilter: false,
      face: 'tool',
    });
    expect(guessPythonKernel(['tool', '--env-filter', 'maybe'], cwd)).toBeUndefined();
  });

  it('is nothing for JavaScript, other commands, remote or sandboxed kernels, and flags it does not know', () => {
    for (const argv of [
      ['run', 'x.js'],
      ['run', 'x.mjs'],
      ['run', '--lang', 'js', 'x.py'],
      [],
      ['mcp'],
      ['setup', 'python', '--check'],
      ['run'],
      ['--jupyter', 'http://h:8888', 'run', 'x.py'],
      ['--sandbox', 'read-only', 'tool'],
      // (A memory limit changes how the kernel is spawned: the early kernel had none.)
      ['--memory-limit', '100', 'run', 'x.py'],
      ['tool', '--memory-limit=100'],
      ['tool', '--allow-network'],
      ['-V'],
      ['run', 'x.py', '--help'],
      ['tool', '--python'],
    ])
      expect(guessPythonKernel(argv, cwd), argv.join(' ')).toBeUndefined();
  });

  it("the command for the launcher's classic script: run and tool, of either language, with flags it reads", () => {
    expect(guessFace(['run', 'x.py'])).toBe('run');
    expect(guessFace(['run', 'x.js'])).toBe('run');
    expect(guessFace(['--lang', 'js', 'run', '-'])).toBe('run');
    expect(guessFace(['--python', 'tool', 'run', 'x.py'])).toBe('run'); // (a value, not the command)
    expect(guessFace(['--cwd=/data', 'tool', '--timeout', '5'])).toBe('tool');
    expect(guessFace(['run', 'x.py', '--', '--sandbox', 'off'])).toBe('run');
    for (const argv of [
      [],
      ['mcp'],
      ['attach', 'run'],
      ['setup', 'python'],
      ['x.py', 'run'],
      ['--sandbox', 'off', 'run', 'x.py'], // (a flag it does not read: the ES modules, as before)
      ['--jupyter', 'http://h:8888', 'tool'],
      ['run', 'x.py', '--help'],
      ['-V'],
      ['--python'],
    ])
      expect(guessFace(argv), argv.join(' ')).toBeUndefined();
  });
});
