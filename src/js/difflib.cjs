'use strict';
/**
 * (Main realm.) A unified diff that matches Python's difflib.unified_diff line for line, so that
 * `diff()` gives the same text in both kernels: the same longest-matching-block search
 * (SequenceMatcher, with its "popular lines" heuristic for sequences of 200 lines and more), the
 * same grouping of changes with `n` lines of context, the same hunk headers.
 */

/** Python's line boundaries: \n \r \v \f, the separators 0x1c-0x1e, NEL, U+2028, U+2029. */
const BREAKS = `\\n\\r\\v\\f${String.fromCharCode(0x1c, 0x1d, 0x1e)}\\u0085\\u2028\\u2029`;
const LINE = new RegExp(`[^${BREAKS}]*(?:\\r\\n|[${BREAKS}])|[^${BREAKS}]+$`, 'g');

/** str.splitlines(True): every line keeps its ending. */
function splitLines(text) {
  return text.match(LINE) ?? [];
}

/** Positions of each line of `b`, without the lines too common to anchor a match. */
function indexLines(b) {
  const b2j = new Map();
  b.forEach((line, j) => {
    const list = b2j.get(line);
    if (list) list.push(j);
    else b2j.set(line, [j]);
  });
  if (b.length >= 200) {
    const limit = Math.floor(b.length / 100) + 1;
    for (const [line, list] of b2j) if (list.length > limit) b2j.delete(line);
  }
  return b2j;
}

function longestMatch(a, b, b2j, alo, ahi, blo, bhi) {
  let besti = alo;
  let bestj = blo;
  let bestsize = 0;
  let j2len = new Map();
  for (let i = alo; i < ahi; i++) {
    const next = new Map();
    for (const j of b2j.get(a[i]) ?? []) {
      if (j < blo) continue;
      if (j >= bhi) break;
      const k = (j2len.get(j - 1) ?? 0) + 1;
      next.set(j, k);
      if (k > bestsize) {
        besti = i - k + 1;
        bestj = j - k + 1;
        bestsize = k;
      }
    }
    j2len = next;
  }
  // Extend over lines left out of the index (popular ones) that match on both sides.
  while (besti > alo && bestj > blo && a[besti - 1] === b[bestj - 1]) {
    besti--;
    bestj--;
    bestsize++;
  }
  while (besti + bestsize < ahi && bestj + bestsize < bhi && a[besti + bestsize] === b[bestj + bestsize]) {
    bestsize++;
  }
  return [besti, bestj, bestsize];
}

function matchingBlocks(a, b) {
  const b2j = indexLines(b);
  const queue = [[0, a.length, 0, b.length]];
  const blocks = [];
  while (queue.length) {
    const [alo, ahi, blo, bhi] = queue.pop();
    const [i, j, k] = longestMatch(a, b, b2j, alo, ahi, blo, bhi);
    if (!k) continue;
    blocks.push([i, j, k]);
    if (alo < i && blo < j) queue.push([alo, i, blo, j]);
    if (i + k < ahi && j + k < bhi) queue.push([i + k, ahi, j + k, bhi]);
  }
  blocks.sort((x, y) => x[0] - y[0] || x[1] - y[1] || x[2] - y[2]);
  const merged = [];
  let [i1, j1, k1] = [0, 0, 0];
  for (const [i2, j2, k2] of blocks) {
    if (i1 + k1 === i2 && j1 + k1 === j2) k1 += k2;
    else {
      if (k1) merged.push([i1, j1, k1]);
      [i1, j1, k1] = [i2, j2, k2];
    }
  }
  if (k1) merged.push([i1, j1, k1]);
  merged.push([a.length, b.length, 0]);
  return merged;
}

function opcodes(a, b) {
  const codes = [];
  let i = 0;
  let j = 0;
  for (const [ai, bj, size] of matchingBlocks(a, b)) {
    const tag = i < ai && j < bj ? 'replace' : i < ai ? 'delete' : j < bj ? 'insert' : '';
    if (tag) codes.push([tag, i, ai, j, bj]);
    i = ai + size;
    j = bj + size;
    if (size) codes.push(['equal', ai, i, bj, j]);
  }
  return codes;
}

function groupedOpcodes(a, b, n) {
  const codes = opcodes(a, b);
  if (!codes.length) codes.push(['equal', 0, 1, 0, 1]);
  const first = codes[0];
  if (first[0] === 'equal')
    codes[0] = [
      'equal',
      Math.max(first[1], first[2] - n),
      first[2],
      Math.max(first[3], first[4] - n),
      first[4],
    ];
  const last = codes[codes.length - 1];
  if (last[0] === 'equal')
    codes[codes.length - 1] = [
      'equal',
      last[1],
      Math.min(last[2], last[1] + n),
      last[3],
      Math.min(last[4], last[3] + n),
    ];
  const groups = [];
  let group = [];
  for (let [tag, i1, i2, j1, j2] of codes) {
    if (tag === 'equal' && i2 - i1 > 2 * n) {
      group.push([tag, i1, Math.min(i2, i1 + n), j1, Math.min(j2, j1 + n)]);
      groups.push(group);
      group = [];
      i1 = Math.max(i1, i2 - n);
      j1 = Math.max(j1, j2 - n);
    }
    group.push([tag, i1, i2, j1, j2]);
  }
  if (group.length && !(group.length === 1 && group[0][0] === 'equal')) groups.push(group);
  return groups;
}

function formatRange(start, stop) {
  const length = stop - start;
  if (length === 1) return `${start + 1}`;
  return `${length ? start + 1 : start},${length}`;
}

/** difflib.unified_diff(a, b, fromfile, tofile, n=n) of two lists of lines, as lines. */
function unifiedDiff(a, b, fromfile, tofile, n = 3) {
  const out = [];
  for (const group of groupedOpcodes(a, b, n)) {
    if (!out.length) out.push(`--- ${fromfile}\n`, `+++ ${tofile}\n`);
    const first = group[0];
    const last = group[group.length - 1];
    out.push(`@@ -${formatRange(first[1], last[2])} +${formatRange(first[3], last[4])} @@\n`);
    for (const [tag, i1, i2, j1, j2] of group) {
      if (tag === 'equal') {
        for (const line of a.slice(i1, i2)) out.push(` ${line}`);
        continue;
      }
      if (tag !== 'insert') for (const line of a.slice(i1, i2)) out.push(`-${line}`);
      if (tag !== 'delete') for (const line of b.slice(j1, j2)) out.push(`+${line}`);
    }
  }
  return out;
}

module.exports = { unifiedDiff, splitLines };
