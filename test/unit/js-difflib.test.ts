/**
 * diff() in JavaScript cells gives Python's difflib.unified_diff text: random edits of random
 * texts (short ones, and long ones where difflib leaves out lines too common to anchor a match)
 * compared with what python3 prints for the same inputs.
 */
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);
const { unifiedDiff, splitLines } = require('../../src/js/difflib.cjs') as {
  unifiedDiff: (a: string[], b: string[], from: string, to: string, n?: number) => string[];
  splitLines: (text: string) => string[];
};

/** A small deterministic generator (mulberry32). */
function random(seed: number) {
  let s = seed;
  return () => {
    s = (s + 0x6d2b79f5) | 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function makeCase(seed: number, lines: number, vocabulary: number) {
  const rnd = random(seed);
  const pick = (n: number) => Math.floor(rnd() * n);
  const a = Array.from({ length: lines }, () => `w${pick(vocabulary)}\n`);
  const b = [...a];
  for (let edits = 1 + pick(6); edits > 0; edits--) {
    const at = pick(b.length + 1);
    const kind = pick(3);
    if (kind === 0) b.splice(at, 1);
    else if (kind === 1) b.splice(at, 0, `new${pick(vocabulary)}\n`);
    else b.splice(at, 1, `changed${pick(5)}\n`);
  }
  if (rnd() < 0.3 && b.length) b[b.length - 1] = (b[b.length - 1] as string).replace('\n', '');
  return { a: a.join(''), b: b.join(''), n: pick(4) };
}

const PYTHON = `
import difflib, json, sys
cases = json.load(sys.stdin)
print(json.dumps(["".join(difflib.unified_diff(c["a"].splitlines(True), c["b"].splitlines(True), "a", "b", n=c["n"])) for c in cases]))
`;

describe('diff() against difflib.unified_diff', () => {
  it('gives the same text on 300 random cases, up to 400 lines long', () => {
    const cases = Array.from({ length: 300 }, (_, i) =>
      i % 3 === 0 ? makeCase(i, 200 + (i % 200), 6) : makeCase(i, 1 + (i % 40), 2 + (i % 9)),
    );
    cases.push({ a: 'x\r\ny\rz\u2028w', b: 'x\ny\rz\u2028W', n: 3 });
    const expected = JSON.parse(
      execFileSync('python3', ['-c', PYTHON], { input: JSON.stringify(cases), encoding: 'utf8' }),
    ) as string[];
    const ours = cases.map((c) => unifiedDiff(splitLines(c.a), splitLines(c.b), 'a', 'b', c.n).join(''));
    const differing = ours.flatMap((text, i) => (text === expected[i] ? [] : [i]));
    expect(differing).toEqual([]);
  });
});
