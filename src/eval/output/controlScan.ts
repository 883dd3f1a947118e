/**
 * Whether a long text holds a control character, four to five times faster than a regular
 * expression: the text is written into a WebAssembly memory as Latin-1 and scanned sixteen bytes
 * at a time (controlScan.wat). V8 matches a character class one character at a time, about a
 * nanosecond each; a notebook cell printing lines of a megabyte spent a fifth of its time in that
 * one test, which every piece of output must pass before it is shown.
 *
 * A character beyond Latin-1 is written as its low byte, so it may look like a control character
 * (U+4E1B as 0x1B) but a control character never hides: the scanner can only say "maybe", and
 * the caller's regular expression decides from there.
 */
import { perfOff } from '../perfOff.js';

/** controlScan.wat, compiled (wat2wasm), as base64. */
const WASM =
  'AGFzbQEAAAABBwFgAn9/AX8DAgEABQMBAAEHGAIGbWVtb3J5AgALZmluZENvbnRyb2wAAArQAQHNAQMBfwN7AX9BACECAkADQCACQRBqIABLDQEgAv0ABAAhAyADQQn9D/0jIANBCv0P/SP9UCADQQ39D/0jQQAgAWv9D/1O/VAhBSADQSD9D/0mIAX9TyADQf8A/Q/9cUEh/Q/9Jv1QIQQgBP1TBEAgAiAE/WRoag8LIAJBEGohAgwACwsCQANAIAIgAE8NASACLQAAIQYgBkEgSSAGQQlHIAZBCkdxIAZBDUcgAUVycXEgBkH/AGtBIUlyBEAgAg8LIAJBAWohAgwACwtBfws=';

/** The scanner's memory: one page, the most of a text scanned at a time. */
const CHUNK = 65_536;
/**
 * Shorter texts go to the regular expression: writing the text out and calling into WebAssembly
 * cost about 80 ns, the regular expression about a nanosecond a character (measured: 47 against
 * 82 ns at 32 characters, 249 against 105 ns at 256, 3.6 against 0.76 µs at 4,096).
 */
export const SCAN_MIN_CHARS = 96;

interface Scanner {
  find: (length: number, crOk: number) => number;
  memory: Buffer;
}

let scanner: Scanner | null | undefined;

function load(): Scanner | null {
  try {
    const module = new WebAssembly.Module(Buffer.from(WASM, 'base64'));
    const exports = new WebAssembly.Instance(module).exports as {
      findControl: (length: number, crOk: number) => number;
      memory: WebAssembly.Memory;
    };
    return { find: exports.findControl, memory: Buffer.from(exports.memory.buffer) };
  } catch {
    // (No WebAssembly SIMD here: the regular expression alone.)
    return null;
  }
}

/**
 * Where the first character of `text` that may be a control character is (0x00-0x08, 0x0b, 0x0c,
 * 0x0e-0x1f, 0x7f-0x9f, and `\r` unless `crOk`), or -1 when there is surely none. Undefined when
 * the scanner cannot be had.
 */
export function maybeControlAt(text: string, crOk: boolean): number | undefined {
  // (OMP_EVAL_PERF_OFF=wasm-scan: no scanner, as where WebAssembly has no SIMD; read once)
  if (scanner === undefined) scanner = perfOff('wasm-scan') ? null : load();
  if (!scanner) return undefined;
  const { find, memory } = scanner;
  for (let from = 0; from < text.length; from += CHUNK) {
    const part = from === 0 && text.length <= CHUNK ? text : text.slice(from, from + CHUNK);
    memory.write(part, 0, 'latin1');
    const at = find(part.length, crOk ? 1 : 0);
    if (at !== -1) return from + at;
  }
  return -1;
}

/**
 * `pattern.test(text)` for a pattern matching one control character (as maybeControlAt's set, or
 * fewer): asked of the scanner first when the text is long.
 */
export function hasControl(text: string, pattern: RegExp, crOk: boolean): boolean {
  if (text.length < SCAN_MIN_CHARS) return pattern.test(text);
  const at = maybeControlAt(text, crOk);
  if (at === -1) return false;
  return pattern.test(at === undefined || at === 0 ? text : text.slice(at));
}
