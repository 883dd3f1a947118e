/**
 * An eval call's MCP result (src/modes/mcp/results.ts) from cell results made here: what the model
 * reads (no colour, each notice once, one budget for text and structured part alike), a
 * structured part that stands alone, and the content each protocol revision allows.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { describe, expect, it } from 'vitest';
import type { CellResult, EvalToolResult } from '../../src/eval/index.js';
import { DEFAULT_SETTINGS } from '../../src/eval/settings.js';
import { evalCallResult } from '../../src/modes/mcp/results.js';
import { toolsFor } from '../../src/modes/mcp/tools.js';
import { cellResult } from '../helpers/results.js';

const LATEST = '2025-11-25';
const artifactDir = mkdtempSync(join(tmpdir(), 'omp-mcp-results-'));

function call(cells: CellResult[], version: string | undefined = LATEST, notices: string[] = []) {
  const result: EvalToolResult = { text: '', isError: cells.some((c) => c.status !== 'ok'), cells };
  return evalCallResult(result, 'default', notices, { version, artifactDir }).then((r) => r.result);
}

const textOf = (r: CallToolResult) => (r.content[0] as { text: string }).text;
type Structured = {
  cells: { text?: string; fullOutput?: { uri: string }; status: string }[];
  verdict?: string;
  notes?: string[];
  notices?: string[];
};
const structured = (r: CallToolResult) => r.structuredContent as Structured;
const count = (text: string, part: string) => text.split(part).length - 1;

/** A cell whose output the sink cut, as the sink leaves it: head, the marker naming the artifact, tail. */
function cutCell(index: number, uri = `artifact://cut-${index}`): CellResult {
  const path = `/tmp/omp-eval-artifacts-0/s/cut-${index}.txt`;
  const fullOutput = `full output: ${uri} (${path})`;
  return cellResult({
    index,
    text: `head\n… [2998 lines, 150000 chars omitted; ${fullOutput}]\ntail\n`,
    truncation: {
      totalChars: 151_890,
      totalLines: 3000,
      omittedChars: 150_000,
      omittedLines: 2998,
      fullOutput,
      artifact: uri,
      artifactPath: path,
    },
  });
}

describe('what the model reads', () => {
  it('has no colour, in the text and in the structured part', async () => {
    const r = await call([
      cellResult({
        text: '\x1b[31mred\x1b[0m and \x1b[1;32mgreen\x1b[0m\n',
        background: '\x1b[33mlate\x1b[0m\n',
      }),
    ]);
    expect(textOf(r)).not.toContain('\x1b');
    expect(textOf(r)).toContain('red and green');
    expect(JSON.stringify(r.structuredContent)).not.toMatch(/\\u001b/);
    expect(structured(r).cells[0]?.text).toContain('red and green');
  });

  it("says a completion() call's closing line once per call", async () => {
    const r = await call([
      cellResult({ text: "[completion finished]\n'a'\n[completion finished]\n'b'\n" }),
      cellResult({ index: 1, text: "[completion finished]\n[completion failed: no]\n'c'\n" }),
    ]);
    expect(count(textOf(r), '[completion finished]')).toBe(1);
    expect(textOf(r)).toContain('[completion failed: no]');
    expect(count(JSON.stringify(r.structuredContent), '[completion finished]')).toBe(1);
  });

  it('names a cut output once: the marker in its text, with one line on how to read it', async () => {
    const r = await call([cutCell(0), cutCell(1)]);
    const text = textOf(r);
    for (const i of [0, 1]) expect(count(text, `artifact://cut-${i}`)).toBe(1);
    expect(text).not.toMatch(/\[output truncated|\[full output of cell/);
    expect(count(text, 'resources/read')).toBe(1);
    // The structured part says it as often, with where the output is as fields.
    const json = JSON.stringify(structured(r).cells);
    expect(count(json, 'artifact://cut-0 (')).toBe(1);
    expect(structured(r).cells[0]?.fullOutput).toMatchObject({ uri: 'artifact://cut-0', totalLines: 3000 });
    expect(structured(r).notes?.filter((n) => n.includes('resources/read'))).toHaveLength(1);
    // A link block per cut output, for the client.
    expect(
      r.content.filter((c) => c.type === 'resource_link').map((c) => (c as { uri: string }).uri),
    ).toEqual(['artifact://cut-0', 'artifact://cut-1']);
  });

  it('has a structured part that stands alone: outputs, verdict, notices, without a second copy of any', async () => {
    const r = await call(
      [
        cellResult({ text: 'one\n', statusEvents: [{ op: 'log', message: 'x' }], notices: ['kept state'] }),
        cellResult({
          index: 1,
          status: 'error',
          exitCode: 1,
          text: 'Traceback\nValueError: bad\n',
          error: { ename: 'ValueError', evalue: 'bad', traceback: [] },
        }),
        cellResult({ index: 2, status: 'skipped', exitCode: null }),
      ],
      LATEST,
      ['The previous eval call was cancelled.'],
    );
    const s = structured(r);
    expect(s.verdict).toBe(
      'Cell 2 failed (exit code 1). Earlier cells succeeded—their state persists. Cell 3 was not run. Fix only cell 2.',
    );
    expect(s.notices).toEqual(['The previous eval call was cancelled.']);
    expect(s.cells.map((c) => c.text)).toEqual([
      'one\n[kept state]',
      'Traceback\nValueError: bad',
      undefined,
    ]);
    expect(s.cells[2]).toEqual({ index: 2, language: 'py', status: 'skipped' });
    const json = JSON.stringify(s);
    for (const once of ['one', 'kept state', 'Traceback', 'Fix only cell 2', 'previous eval call'])
      expect(count(json, once)).toBe(1);
    expect(json).not.toMatch(/statusEvents|"timedOut":false|"notices":\[\]/);
    // The text has it all too: clients send the model one of the two.
    expect(textOf(r)).toBe(
      '[The previous eval call was cancelled.]\n\n[1/3]\none\n[kept state]\n\n[2/3]\nTraceback\nValueError: bad\n\n' +
        s.verdict,
    );
    const [evalTool] = toolsFor({ ...DEFAULT_SETTINGS, 'sandbox.mode': 'off' });
    const valid = new AjvJsonSchemaValidator().getValidator(evalTool?.outputSchema as object)(s);
    expect(valid).toMatchObject({ valid: true });
  });
});

describe('one budget for the whole result', () => {
  it('400 cells of 6,000 characters: the text within 60,000 characters, the structured part within 100,000', async () => {
    const cells = Array.from({ length: 400 }, (_, i) =>
      cellResult({ index: i, text: `${String(i).padEnd(6000, 'x')}\n`, title: 't'.repeat(5000) }),
    );
    const r = await call(cells);
    // (today's figures: 159,000 characters of text, 2.2 MB of structured content)
    expect(textOf(r).length).toBeLessThanOrEqual(60_000);
    expect(JSON.stringify(r.structuredContent).length).toBeLessThanOrEqual(100_000);
    // What is left out is said, with where all of it is.
    expect(textOf(r)).toMatch(/chars omitted; full output: artifact:\/\//);
    expect(structured(r).notes?.join('\n')).toMatch(/left out/);
    expect(r.content.some((c) => c.type === 'resource_link' && c.name === 'result text')).toBe(true);
  });
});

describe('the protocol revision the client negotiated', () => {
  it('2025-03-26: no structured part, no resource_link; the text says it all', async () => {
    const old = await call([cutCell(0)], '2025-03-26');
    expect(old.structuredContent).toBeUndefined();
    expect(old.content.map((c) => c.type)).toEqual(['text']);
    expect(textOf(old)).toContain('artifact://cut-0');
    const now = await call([cutCell(0)], '2025-06-18');
    expect(now.content.map((c) => c.type)).toEqual(['text', 'resource_link']);
    expect(now.structuredContent).toBeDefined();
  });
});

describe('titles in the structured part (issue 42, defect 9)', () => {
  it('are sanitised and capped as in the text: no bidi controls or escapes, not a 2 MB title whole', async () => {
    const title = `\u202eevil\u2066 \x1b[31mred\x1b[0m\n${'t'.repeat(2_000_000)}`;
    const r = await call([
      cellResult({ index: 0, text: 'ok\n', title }),
      cellResult({ index: 1, text: 'two\n' }),
    ]);
    const cell = (r.structuredContent as { cells: { title?: string }[] }).cells[0];
    expect(cell?.title).toMatch(/^evil red t+…$/);
    expect(cell?.title?.length).toBeLessThanOrEqual(200);
    expect(textOf(r)).toContain(`[1/2] ${cell?.title}`);
    expect(JSON.stringify(r.structuredContent)).not.toMatch(/[\u202a-\u202e\u2066-\u2069\x1b]/);
  });
});
