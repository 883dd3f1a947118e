/**
 * What an eval result says when --memory-limit stopped a kernel, against the real `omp-eval mcp`:
 * the cell is not run again and the rest of the call is skipped (it said the next cell would run).
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, describe, expect, it } from 'vitest';
import { evalCell, startStdio, stopAll, textOf } from '../helpers/mcp.js';

afterAll(stopAll);

describe('--memory-limit in a result', () => {
  it('the notice says that the rest of the call was skipped, not that the next cell runs', async () => {
    const { client } = await startStdio({ args: ['--memory-limit', '128', 'mcp'] });
    const result = (await client.callTool({
      name: 'eval',
      arguments: {
        cells: [
          { language: 'js', code: 'globalThis.kept = 1' },
          { language: 'js', code: 'const hog = []; for (;;) hog.push(Buffer.alloc(1 << 20, 1))' },
          { language: 'js', code: 'console.log("after the hog")' },
        ],
      },
    })) as CallToolResult;
    const text = textOf(result);
    expect(text).toContain(
      'The JavaScript kernel exceeded 128 MB and was stopped (--memory-limit). This cell is not run again, and the cells after it in this call are skipped; the next cell you run starts a new JavaScript kernel, without the state of earlier cells.',
    );
    expect(text).not.toContain('the next cell runs in a new kernel');
    expect(text).not.toContain('after the hog');
    const cells = (result.structuredContent as { cells: { status: string }[] }).cells;
    expect(cells.map((c) => c.status)).toEqual(['ok', 'error', 'skipped']);
    expect(textOf(await evalCell(client, 'typeof kept', {}, 'js'))).toMatch(/^'undefined'(\n|$)/);
  });
});
