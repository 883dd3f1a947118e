/** The MCP tools' arguments (src/modes/mcp/args.ts): what is taken, what is refused and why. */
import { describe, expect, it } from 'vitest';
import { ArgumentError, parseEvalArgs, parseKernelArgs } from '../../src/modes/mcp/args.js';
import { DEFAULT_SESSION } from '../../src/modes/mcp/tools.js';

const problemsOf = (call: () => unknown): string[] => {
  try {
    call();
  } catch (err) {
    if (err instanceof ArgumentError) return err.problems;
    throw err;
  }
  throw new Error('the arguments were taken');
};

describe('parseEvalArgs', () => {
  it('takes cells and a session, the default session when none is named', () => {
    const cells = [{ language: 'py', code: '1' }];
    expect(parseEvalArgs({ cells })).toEqual({ session: DEFAULT_SESSION, params: { cells }, notes: [] });
    expect(parseEvalArgs({ cells, session: 'a.b-c_1' }).session).toBe('a.b-c_1');
  });

  it('raises a timeout below 1 s to 1 s, with a note naming the cell', () => {
    const { params, notes } = parseEvalArgs({
      cells: [
        { language: 'py', code: '1', timeout: 5 },
        { language: 'py', code: '2', timeout: 0 },
      ],
    });
    expect(params.cells.map((c) => c.timeout)).toEqual([5, 1]);
    expect(notes).toEqual(['cell 2: "timeout": 0 is below the shortest timeout, so the cell ran with 1 s.']);
  });

  it('lists every problem at once: a bad session name, bad cells, a field it does not take', () => {
    const problems = problemsOf(() => parseEvalArgs({ session: 'has space', cells: 'x', extra: 1 }));
    expect(problems[0]).toBe(
      '"session" must be a name of 1-64 letters, digits, "_", "-" or ".", got "has space"',
    );
    expect(problems.length).toBeGreaterThan(1);
    expect(problems.join('\n')).toContain('(accepted: "cells", "session")');
    expect(problemsOf(() => parseEvalArgs([1]))).toEqual(['the arguments must be an object']);
  });
});

describe('parseKernelArgs', () => {
  it('takes a language (py, js or both, the default) and a session', () => {
    expect(parseKernelArgs('restart', undefined)).toEqual({
      session: DEFAULT_SESSION,
      languages: ['py', 'js'],
    });
    expect(parseKernelArgs('restart', { language: 'js', session: 's' })).toEqual({
      session: 's',
      languages: ['js'],
    });
  });

  it('refuses unknown fields, a bad language and a bad session name, naming the tool', () => {
    const err = (() => {
      try {
        parseKernelArgs('variables', { language: 'r', session: '', other: true });
      } catch (e) {
        return e as ArgumentError;
      }
    })();
    expect(err?.message).toMatch(/^Invalid arguments for variables:/);
    expect(err?.problems).toEqual([
      'unknown field "other" (accepted: "language", "session")',
      '"session" must be a name of 1-64 letters, digits, "_", "-" or ".", got ""',
      '"language" must be "py", "js" or "both", got "r"',
    ]);
  });
});
