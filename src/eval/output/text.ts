/**
 * Text from a cell or a caller, made safe to show: escape sequences and control characters
 * dropped (colour kept, or not), cuts that never split an emoji, one-line headers.
 */

import { hasControl } from './controlScan.js';

/*
 * Escape sequences: CSI (ESC [ or 8-bit CSI, params, final), strings (OSC ESC ], DCS ESC P, SOS ESC X, PM ESC ^,
 * APC ESC _, ended by BEL or ST), and the rest (ESC, intermediates 0x20-0x2f, a final byte:
 * ESC c, ESC ( 0, ESC 7, ESC =, ESC # 8). A lone ESC is dropped by CONTROLS.
 */
const ESCAPES = /(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]|\x1b[\]PX^_][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[ -/]*[0-~]/g;
const SGR = /^\x1b\[[0-9;:]*m$/;
/* C0 controls other than \t, \n and \r (ESC included: whatever is left of it is junk); DEL; C1. */
const CONTROLS = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]/g;
/* An escape sequence cut off at the end of a chunk. */
export const PARTIAL_ESCAPE = /\x1b(?:\[[0-?]*[ -/]*|[\]PX^_][^\x07\x1b]*|[ -/]*)$/;
/* How long an unfinished escape sequence may wait for its end before it is dropped. */
export const PARTIAL_ESCAPE_CAP = 4096;

/* Every escape sequence starts with a character of CONTROLS (ESC or CSI). */
const ANY_CONTROL = new RegExp(CONTROLS.source);
/* CONTROLS, or `\r`. */
const CONTROL_OR_CR = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;
const JUNK = new RegExp(`${ESCAPES.source}|${CONTROLS.source}`, 'g');

/**
 * `text.lastIndexOf(char, before - 1)` for one character, without its cost where the character is
 * far back or not there: V8 looks for a character forwards with memchr (a hundredth of a
 * nanosecond a character) but backwards one at a time (half a nanosecond). So windows before
 * `before`, each larger than the last, are first asked forwards whether they hold the character;
 * the backward search runs only over the window that does. (A notebook cell of 256 lines of a
 * megabyte spent a third of its time looking backwards for a `\r` or a newline that was not there.)
 */
export function lastIndexOfChar(text: string, char: string, before = text.length): number {
  let end = Math.min(before, text.length);
  for (let window = 256; end > 0; window *= 4) {
    const start = Math.max(0, end - window);
    const first = text.indexOf(char, start);
    if (first === -1 || first >= end) {
      end = start;
      continue;
    }
    // (Within a few hundred characters a backward search costs less than asking forwards again.)
    return end - first <= 256 ? text.lastIndexOf(char, end - 1) : lastInRange(text, char, first, end);
  }
  return -1;
}

/**
 * The last `char` before `end`, given that `from` (before `end`) holds one. The range is halved,
 * each upper half asked forwards whether it holds the character, down to a few dozen characters
 * that are searched backwards. (A window of lines of 5,000 characters was searched backwards
 * almost whole: a tenth of a cell's time.)
 */
function lastInRange(text: string, char: string, from: number, end: number): number {
  let found = from;
  let hi = end;
  // (The first question is about the last 64 characters: lines are mostly short.)
  for (let near = true; hi - found > 64; near = false) {
    const mid = near ? hi - 64 : (found + 1 + hi) >>> 1;
    const at = text.indexOf(char, mid);
    if (at !== -1 && at < hi) found = at;
    else hi = mid;
  }
  return text.lastIndexOf(char, hi - 1);
}

/** Drops control characters and escape sequences, except colour (SGR). */
export function sanitize(text: string): string {
  // Most output has no control character at all: one quick scan says so.
  if (!hasControl(text, ANY_CONTROL, true)) return text;
  return text.replace(JUNK, (seq) => (SGR.test(seq) ? seq : ''));
}

/** True when `text` has no control character and no `\r`: sanitize() returns it as it is, and no line of it is rewritten. */
export function isPlainText(text: string): boolean {
  return !hasControl(text, CONTROL_OR_CR, false);
}

/* A character (a pair of surrogates whole) or an escape sequence, for applyBackspaces. */
const CHARACTER_OR_ESCAPE = new RegExp(`${ESCAPES.source}|[\\uD800-\\uDBFF][\\uDC00-\\uDFFF]|[^]`, 'g');
/* A colour sequence at the end of a text (rows keep colour, see sanitize). */
const TRAILING_SGR = /\x1b\[[0-9;:]*m$/;
const isEscape = (token: string) => token.charCodeAt(0) === 0x1b || token.charCodeAt(0) === 0x9b;

/**
 * Backspaces as Jupyter applies them: each `\b` takes away the character before it on its line
 * (a character outside the BMP whole; an escape sequence, colour, is no character and stays),
 * none at a line's start or after a `\r`. Returns the text without them, and how many came before
 * any character of the text's first line: those take characters from the line printed before (a
 * spinner writes `\b|`, `\b/`, ... one at a time).
 */
export function applyBackspaces(text: string): { text: string; before: number } {
  if (!text.includes('\b')) return { text, before: 0 };
  const out: string[] = [];
  let line: string[] = [];
  let before = 0;
  let first = true;
  let restarted = false;
  for (const [token] of text.matchAll(CHARACTER_OR_ESCAPE)) {
    if (token === '\b') {
      let at = line.length - 1;
      while (at >= 0 && isEscape(line[at] as string)) at--;
      if (at >= 0 && line[at] !== '\r') line.splice(at, 1);
      else if (at < 0 && first && !restarted) before++;
    } else if (token === '\n') {
      out.push(line.join(''), '\n');
      line = [];
      first = false;
    } else {
      if (token === '\r') restarted = true;
      line.push(token);
    }
  }
  out.push(line.join(''));
  return { text: out.join(''), before };
}

/** How far back from where it cuts lastCharsCut looks (a colour sequence longer is no colour). */
export const CUT_LOOKBACK = 64;

/**
 * Where `text` ends once its last `n` characters are taken off (a character outside the BMP
 * whole), and the colour sequences among them, which stay. It reads no further back than
 * CUT_LOOKBACK units before `end`.
 */
export function lastCharsCut(text: string, n: number): { end: number; colour: string } {
  let end = text.length;
  let colour = '';
  for (let i = 0; i < n && end > 0; ) {
    const sgr = TRAILING_SGR.exec(text.slice(Math.max(0, end - CUT_LOOKBACK), end));
    if (sgr) {
      colour = sgr[0] + colour;
      end -= sgr[0].length;
      continue;
    }
    end -=
      end >= 2 && isHighSurrogate(text.charCodeAt(end - 2)) && text.charCodeAt(end - 1) >= 0xdc00 ? 2 : 1;
    i++;
  }
  return { end, colour };
}

/** `text` less its last `n` characters (a character outside the BMP whole; colour kept). */
export function dropLastChars(text: string, n: number): string {
  const { end, colour } = lastCharsCut(text, n);
  return text.slice(0, end) + colour;
}

/** The bidirectional overrides and isolates (a caller's title must not reorder what follows it). */
const BIDI_CONTROLS = /[\u202a-\u202e\u2066-\u2069]/g;

/** Caller text as plain text: every escape sequence and control character dropped (colour too). */
export function plainText(text: string): string {
  const lines = text.replace(/\r\n?/g, '\n');
  return hasControl(lines, ANY_CONTROL, true) ? lines.replace(JUNK, '') : lines;
}

/** How far back from a cut an escape sequence it would split can begin (ESC, `[`, parameters). */
const ESCAPE_REACH = 32;

/** True for the first half of a surrogate pair. */
const isHighSurrogate = (code: number): boolean => code >= 0xd800 && code <= 0xdbff;

/**
 * Where a cut at `at` of a text of `length` units (the unit at i is `unitAt(i)`) leaves whole
 * characters and whole escape sequences: before a colour sequence (which sanitize keeps) that it
 * would split, whose halves would show as text or swallow the next line's start; else one back
 * when it falls between the two halves of a surrogate pair (an emoji), whose half no UTF-8
 * encoder takes.
 */
export function wholeCutPoint(unitAt: (i: number) => number, at: number, length: number): number {
  if (at <= 0 || at >= length) return at;
  for (let i = at - 1; i >= Math.max(0, at - ESCAPE_REACH); i--) {
    const code = unitAt(i);
    if (code === 0x1b || code === 0x9b) {
      // (ESC alone, or ESC `[` and what may follow it before its final byte)
      const csi = code === 0x9b || i + 1 === at || unitAt(i + 1) === 0x5b;
      return csi ? i : at;
    }
    // Parameters, intermediates and the `[`: what an unfinished sequence holds.
    if (!((code >= 0x20 && code <= 0x3f) || code === 0x5b)) break;
  }
  return isHighSurrogate(unitAt(at - 1)) ? at - 1 : at;
}

/**
 * Where a tail that would start at `at` starts with whole characters and sequences: one unit
 * later when `at` splits a surrogate pair (the tail keeps within its room), before a colour
 * sequence it would split (the tail keeps it whole).
 */
export function tailStart(unitAt: (i: number) => number, at: number, length: number): number {
  const whole = wholeCutPoint(unitAt, at, length);
  return whole !== at && isHighSurrogate(unitAt(at - 1)) ? at + 1 : whole;
}

/** wholeCutPoint of one string. */
export function cutPoint(text: string, at: number): number {
  return wholeCutPoint((i) => text.charCodeAt(i), at, text.length);
}

/** Caller text for one line (a header, a title): plain, whitespace runs as one space, at most `max` chars. */
export function oneLine(text: string, max = 200): string {
  // (without the bidirectional overrides and isolates, which would reorder what follows on the line)
  const flat = plainText(text.replace(/[\r\n\t]+/g, ' ').replace(BIDI_CONTROLS, '')).trim();
  return flat.length > max ? `${flat.slice(0, cutPoint(flat, max - 1))}…` : flat;
}
