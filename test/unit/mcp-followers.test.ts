/** The note an agent's next result starts with after a person ran a cell in its session. */
import { describe, expect, it } from 'vitest';
import { failedResult } from '../../src/eval/index.js';
import { personNote } from '../../src/modes/mcp/followers.js';

const ok = { ...failedResult({ index: 0, language: 'py' }, 3, 'x'), status: 'ok' as const };
const { error: _, ...okResult } = ok;

describe('the note of a person’s cell', () => {
  it('quotes the first line, counts the rest, and says how it ended', () => {
    expect(personNote('py', 'df = load()\ndf.head()\n', okResult)).toBe(
      'A person following this session (omp-eval attach) ran a Python cell in it before this call: `df = load()` (and 1 more line); it ran ok. Names it defined or changed are now in the kernel.',
    );
    const failed = failedResult({ index: 0, language: 'js' }, 3, 'boom', { ename: 'TypeError' });
    expect(personNote('js', 'a.b.c', failed)).toMatch(
      /ran a JavaScript cell .*: `a\.b\.c`; it failed: TypeError\./,
    );
    expect(personNote('py', 'x'.repeat(500), okResult)).toContain(`\`${'x'.repeat(200)}\`;`);
  });
});
