'use strict';
/**
 * Where a position of the transformed cell was in the cell as typed. The transform is a list of
 * edits (ranges of the original replaced by text); copied text maps one to one, inserted text to
 * the start of what it replaced, and the async wrapper's own lines to nothing (their stack frames
 * are the runner's, not the cell's).
 */

/** Offsets of the first character of every line. */
function lineStarts(text) {
  const starts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

/** The index of the last element of a sorted array that is <= value. */
function floorIndex(sorted, value) {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (sorted[mid] <= value) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/**
 * Applies `edits` ([start, end, text, hidden?], sorted, not overlapping) to `code`; returns the
 * new text and a map back to `code` shifted by `shift` (characters added before the original).
 */
function applyEdits(code, edits, { prefix = '', suffix = '', shift = 0 } = {}) {
  const genStarts = [];
  const origStarts = [];
  const kinds = []; // 0 copied, 1 inserted, 2 hidden
  const parts = [];
  let gen = 0;
  const push = (text, orig, kind) => {
    if (!text) return;
    genStarts.push(gen);
    origStarts.push(orig);
    kinds.push(kind);
    parts.push(text);
    gen += text.length;
  };
  push(prefix, 0, 2);
  let at = 0;
  for (const [start, end, text, hidden] of edits) {
    push(code.slice(at, start), at, 0);
    push(text, start, hidden ? 2 : 1);
    at = end;
  }
  push(code.slice(at), at, 0);
  push(suffix, code.length, 2);
  const out = parts.join('');
  return {
    code: out,
    map: { genStarts, origStarts, kinds, genLines: lineStarts(out), shift },
  };
}

/**
 * The original `{line, column}` (1-based, as in stack traces) of a 1-based position in the
 * generated code, or null for the wrapper's own code.
 */
function originalPosition(map, source, line, column) {
  const lineStart = map.genLines[line - 1];
  if (lineStart === undefined) return null;
  const gen = lineStart + column - 1;
  const i = floorIndex(map.genStarts, gen);
  const kind = map.kinds[i];
  if (kind === 2) return null;
  let offset = (kind === 0 ? map.origStarts[i] + (gen - map.genStarts[i]) : map.origStarts[i]) - map.shift;
  offset = Math.max(0, Math.min(offset, source.length));
  if (!map.origLines) map.origLines = lineStarts(source);
  const origLines = map.origLines;
  const l = floorIndex(origLines, offset);
  return { line: l + 1, column: offset - origLines[l] + 1 };
}

module.exports = { applyEdits, originalPosition, lineStarts };
