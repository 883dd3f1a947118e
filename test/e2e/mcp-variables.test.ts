/**
 * The variables tool against the real `omp-eval mcp` and the SDK's client (issue 42, item 9): a
 * name whose summary never finishes (a __repr__ that sleeps, an inspect hook that spins) is listed
 * as skipped, saying so, and every other name is listed.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { evalCell, startStdio, stopAll, textOf } from '../helpers/mcp.js';

afterAll(stopAll);

interface Listed {
  variables: { name: string; language: string; type: string; summary: string; skipped?: boolean }[];
}

describe('variables with a summary that never finishes', () => {
  it('lists the other names and says which were skipped, in both languages', async () => {
    const { client } = await startStdio();
    const py =
      'import time\nclass Sleepy:\n    def __repr__(self):\n        time.sleep(3600)\nbefore = 1\nsleepy = Sleepy()\nafter = "kept"';
    expect((await evalCell(client, py)).isError).toBeFalsy();
    const js =
      "const shown = 2; const spins = { [Symbol.for('nodejs.util.inspect.custom')]() { for (;;); } }";
    expect((await evalCell(client, js, {}, 'js')).isError).toBeFalsy();

    const result = await client.callTool({ name: 'variables', arguments: {} });
    expect(result.isError).toBeFalsy();
    const listed = (result.structuredContent as unknown as Listed).variables;
    const line = (v: Listed['variables'][number]) => `${v.language}:${v.name}:${v.skipped === true}`;
    expect(listed.map(line)).toEqual([
      'py:Sleepy:false',
      'py:after:false',
      'py:before:false',
      'py:sleepy:true',
      'py:time:false',
      'js:shown:false',
      'js:spins:true',
    ]);
    expect(listed.find((v) => v.name === 'after')?.summary).toBe('kept');
    const text = textOf(result);
    expect(text).toMatch(/sleepy +Sleepy +<skipped: its summary took longer than 1 s>/);
    expect(text).toContain(
      'Skipped (making their summary took too long; the values are still defined): sleepy',
    );
    expect(text).toContain(
      'Skipped (making their summary took too long; the values are still defined): spins',
    );
    // the kernels serve on, the names intact
    expect(textOf(await evalCell(client, 'print(before + 1, type(sleepy).__name__)'))).toContain('2 Sleepy');
  });
});
