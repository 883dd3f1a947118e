/** The note an agent's next result starts with after a person ran a cell in its session. */
import { describe, expect, it } from 'vitest';
import { failedResult } from '../../src/eval/index.js';
import { nameChanges, personNote } from '../../src/modes/mcp/followers.js';

const ok = { ...failedResult({ index: 0, language: 'py' }, 3, 'x'), status: 'ok' as const };
const { error: _, ...okResult } = ok;

describe('the note of a person’s cell', () => {
  it('quotes the first line, counts the rest, says how it ended and which names it touched', () => {
    expect(
      personNote('py', 'df = load()\ndf.head()\n', okResult, { changed: ['df'], removed: ['old'] }),
    ).toBe(
      'A person following this session (omp-eval attach) ran a Python cell in it before this call: `df = load()` (and 1 more line); it ran ok. It defined or changed df; it deleted old.',
    );
    const failed = failedResult({ index: 0, language: 'js' }, 3, 'boom', { ename: 'TypeError' });
    expect(personNote('js', 'a.b.c', failed, { changed: [], removed: [] })).toMatch(
      /ran a JavaScript cell .*: `a\.b\.c`; it failed: TypeError\. It defined or changed no names\.$/,
    );
    expect(personNote('py', 'x'.repeat(500), okResult, undefined)).toContain(
      `\`${'x'.repeat(200)}\`; it ran ok. Which names it defined or changed could not be listed.`,
    );
    const many = Array.from({ length: 25 }, (_, i) => `n${i}`);
    expect(personNote('py', 'x', okResult, { changed: many, removed: [] })).toContain('n19 and 5 more.');
  });

  it('finds names new, changed (type or summary) and gone', () => {
    const before = new Map([
      ['a', 'int\u00001'],
      ['b', 'int\u00002'],
      ['c', 'str\u0000x'],
    ]);
    const after = new Map([
      ['a', 'int\u00001'],
      ['b', 'int\u00003'],
      ['d', 'list\u0000n=2'],
    ]);
    expect(nameChanges(before, after)).toEqual({ changed: ['b', 'd'], removed: ['c'] });
  });
});
