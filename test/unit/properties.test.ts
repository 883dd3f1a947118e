import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LineSplitter, parseFrameLine } from '../../src/eval/protocol/index.js';
import { ToolInputError, validateToolInput } from '../../src/eval/tool.js';

/** Text with the characters that break naive splitters: multi-byte, U+2028/U+2029, \r, quotes. */
const awkwardText = fc.string({
  unit: fc.oneof(
    fc.constantFrom('a', 'é', '日', '🎉', '\u2028', '\u2029', '\r', '"', '\\', '\t', '\u0000'),
    fc.string({ minLength: 0, maxLength: 1 }),
  ),
  maxLength: 200,
});

describe('properties: the NDJSON splitter', () => {
  it('any chunking of any frames yields exactly those frames', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ type: fc.constant('stdout'), id: fc.string(), data: awkwardText }), {
          maxLength: 20,
        }),
        fc.array(fc.integer({ min: 1, max: 64 }), { minLength: 1, maxLength: 50 }),
        (frames, cuts) => {
          const bytes = Buffer.from(frames.map((f) => `${JSON.stringify(f)}\n`).join(''));
          const splitter = new LineSplitter();
          const lines: string[] = [];
          let at = 0;
          for (let i = 0; at < bytes.length; i++) {
            const size = cuts[i % cuts.length] as number;
            lines.push(...splitter.push(bytes.subarray(at, at + size)));
            at += size;
          }
          expect(splitter.end()).toBeUndefined();
          expect(lines.map((l) => parseFrameLine(l))).toEqual(
            frames.map((frame) => ({ kind: 'frame', frame })),
          );
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('properties: the eval tool input', () => {
  it('arbitrary JSON never crashes: it is valid params or a clear validation error', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        try {
          const params = validateToolInput(value);
          expect(Array.isArray(params.cells)).toBe(true);
          expect(params.cells.length).toBeGreaterThan(0);
        } catch (err) {
          expect(err).toBeInstanceOf(ToolInputError);
          const problems = (err as ToolInputError).problems;
          expect(problems.length).toBeGreaterThan(0);
          for (const p of problems) expect(p).toMatch(/^(the input|"cells"|cells\[\d+\]|unknown field)/);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('arbitrary cell objects get a message per malformed field', () => {
    const cell = fc.record(
      {
        language: fc.oneof(fc.constantFrom('py', 'js'), fc.jsonValue()),
        code: fc.oneof(fc.string(), fc.jsonValue()),
        title: fc.jsonValue(),
        timeout: fc.oneof(fc.double(), fc.jsonValue()),
        reset: fc.jsonValue(),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(fc.array(cell, { minLength: 1, maxLength: 5 }), (cells) => {
        try {
          validateToolInput({ cells });
        } catch (err) {
          expect(err).toBeInstanceOf(ToolInputError);
          for (const p of (err as ToolInputError).problems) expect(p).toMatch(/^cells\[\d+\]/);
        }
      }),
      { numRuns: 1000 },
    );
  });
});
