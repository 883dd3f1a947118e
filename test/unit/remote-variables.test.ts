/**
 * The remote listing's two halves without a server: the expression (run here by a real Python, as
 * ipykernel evaluates a user expression, on a namespace shaped like IPython's) and the reading of
 * the user expression's answer, every shape a kernel may give.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { listingExpression, readListing } from '../../src/eval/remote/variables.js';

describe('the remote listing expression', () => {
  it("evaluates to the JSON of the user's names, binding nothing in the namespace it reads", () => {
    const script = [
      'import json, sys',
      'class Shell: pass',
      'shell = Shell()',
      'shell.user_ns = {"a": 1, "_b": 2, "In": [], "text": "x" * 80}',
      'shell.user_ns_hidden = {"In": shell.user_ns["In"]}',
      'get_ipython = lambda: shell',
      'before = set(shell.user_ns)',
      'value = eval(sys.argv[1], {"get_ipython": get_ipython})',
      'assert set(shell.user_ns) == before',
      'print(repr(value))',
    ].join('\n');
    const out = execFileSync('python3', ['-c', script, listingExpression(500, 1000, 5000)]).toString();
    expect(JSON.parse(out)).toEqual({
      variables: [
        { name: 'a', type: 'int', summary: '1' },
        { name: 'text', type: 'str', summary: `${'x'.repeat(25)}<...>${'x'.repeat(25)}` },
      ],
      total: 2,
    });
  });
});

describe('reading the answer', () => {
  it('takes the listing from text/plain', () => {
    const data = {
      'text/plain': '{"variables": [{"name": "a", "type": "int", "summary": "1"}], "total": 1}',
    };
    expect(readListing({ status: 'ok', data })).toEqual({
      variables: [{ name: 'a', type: 'int', summary: '1' }],
      total: 1,
    });
  });

  it('says why there is no listing', () => {
    expect(readListing(undefined).error).toBe('the kernel gave no answer to the listing');
    expect(
      readListing({ status: 'error', ename: 'NameError', evalue: "name 'get_ipython' is not defined" }).error,
    ).toBe('the kernel is not IPython (no get_ipython()); run %whos or dir() in a cell instead');
    expect(readListing({ status: 'error', ename: 'TypeError', evalue: 'boom' }).error).toBe(
      'the listing failed in the kernel: TypeError: boom',
    );
    expect(readListing({ status: 'ok', data: { 'text/plain': "'not json'" } }).error).toBe(
      'the kernel answered the listing in an unknown form',
    );
    expect(readListing({ status: 'ok', data: { 'text/plain': '{"variables": 3, "total": 1}' } }).error).toBe(
      'the kernel answered the listing in an unknown form',
    );
  });
});
