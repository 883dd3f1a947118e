/**
 * A cell's output as screen rows, bounded whatever the cell prints: the first HEAD_ROWS rows and
 * the last TAIL_ROWS rows are kept (and at most KEPT_CHARS characters in all), each line clamped
 * at MAX_LINE_CHARS. Once something has to be left out, the whole text output goes to a spill
 * file (the engine's artifact writer) that the cell names. A `\r` rewrites the open line, as a
 * terminal would.
 */
import type { ImageOutput } from '../../eval/index.js';
import {
  applyBackspaces,
  cutPoint,
  dropLastChars,
  isPlainText,
  lastIndexOfChar,
  sanitize,
} from '../../eval/index.js';
import type { Row, Stream, TextRow } from './outputRows.js';
import { KEPT_CHARS, Rows, TAIL_ROWS } from './outputRows.js';
import { BatchReader, detached, tailCut, textsFrom } from './outputText.js';

export type { ImageRow, Row, Stream, TextRow } from './outputRows.js';
export { HEAD_ROWS, KEPT_CHARS, TAIL_ROWS } from './outputRows.js';

/** A display or result as the kernel sent it, for saving (.ipynb keeps MIME bundles). */
export interface RichOutput {
  kind: 'display' | 'result';
  bundle: Record<string, unknown>;
  /** Jupyter's display metadata (an image's width and height), saved with the bundle. */
  metadata?: Record<string, unknown>;
}

export interface Output {
  head: readonly Row[];
  tail: readonly Row[];
  /** Rows left out between head and tail. */
  omitted: number;
  rich: readonly RichOutput[];
  /** The errors shown (their tracebacks are rows), in order: what `/save` writes as ename and evalue. */
  errors?: readonly { ename: string; evalue: string }[];
  /** Where the whole text output is, once something was left out. */
  spill?: { path?: string; error?: string };
}

export const MAX_LINE_CHARS = 4000;
/** Rich outputs (bundles) kept for saving. */
const RICH_LIMIT = 100;
/**
 * Text waiting to be made into rows at most, beyond what a settle held back (a longer wait would
 * hold a long line in memory).
 */
const PENDING_CHARS = 1 << 18;
/** Text a settle holds back at most: the last TAIL_ROWS lines, unless they are longer. */
const HELD_CHARS = 1 << 19;

export const emptyOutput = (): Output => ({ head: [], tail: [], omitted: 0, rich: [] });

/** Receives the whole text output once the rows cannot keep all of it. */
export interface Spill {
  /** Text as the cell printed it. */
  push(text: string): void;
  end(): void;
  /** The file, or why there is none, once ended. */
  readonly where: { path?: string; error?: string };
}

/** A running cell's output: mutable, fed by the runner, read through snapshot(). */
export class OutputBuffer {
  private readonly rows = new Rows(() => this.overflow());
  private rich: RichOutput[] = [];
  private errors: { ename: string; evalue: string }[] = [];
  private spill?: Spill;
  /** Raw text seen so far, until the first overflow hands it to the spill. */
  private unspilled: string[] = [];
  /** Text not yet made into rows (see settle), all of one stream. */
  private pending?: {
    stream: Stream;
    rich: number | undefined;
    texts: string[];
    /** How many of the first texts are in the spill (or unspilled) already: text held back. */
    spilled?: number;
    /** Whether each text is plain (isPlainText), once asked (see tailCut). */
    plain?: boolean[];
  };
  private pendingChars = 0;
  /** Of pendingChars, the text the last settle held back. */
  private heldChars = 0;
  /** Changes with every change of the rows: the runner re-renders only when it moved. */
  version = 0;
  /** Characters of text received in all (the runner slows its ticks for a flood). */
  received = 0;

  constructor(private readonly openSpill: () => Spill) {}

  appendText(stream: Stream, raw: string, rich?: number): void {
    this.version++;
    this.received += raw.length;
    const pending = this.pending;
    if (pending && (pending.stream !== stream || pending.rich !== rich)) this.settle();
    if (this.pending) this.pending.texts.push(raw);
    else this.pending = { stream, rich, texts: [raw] };
    this.pendingChars += raw.length;
    if (this.pendingChars - this.heldChars > PENDING_CHARS) this.settle(true);
  }

  /**
   * Turns the text received since the last read into rows. Text waits until the rows are read (a
   * snapshot, about ten times a second), so a cell printing fast makes rows only for the lines
   * that can still be kept: once the head is full, whole lines that the last TAIL_ROWS lines of
   * the text would push out of the tail, or the last lines whose rows hold KEPT_CHARS characters
   * (text with no control character and no `\r`, whose rows are its lines), are only counted.
   * Only what becomes a row is sanitized; the spill file gets the text as the cell printed it.
   *
   * `holdBack` (a settle because much text waits, not a read): the lines that may still be kept
   * stay text, for the next settle to make rows of or to count out, unless they are long. (Made
   * into rows at once, lines of 5,000 characters each became a row of 4,000 that the next lines
   * pushed out again: a cell of 100 MB spent half its time collecting them.)
   *
   * The waiting text is never joined into one string (see BatchReader): a string over 128 KB is
   * a large object, costly to make and to collect. With a megabyte joined at a time, a cell
   * printing as fast as it can spent a third of the notebook's time here and as much again in
   * the collector.
   */
  private settle(holdBack = false): void {
    const pending = this.pending;
    if (!pending) return;
    this.pending = undefined;
    this.pendingChars = 0;
    this.heldChars = 0;
    const { stream, rich, texts } = pending;
    let total = 0;
    for (let i = 0; i < texts.length; i++) {
      const raw = texts[i] as string;
      total += raw.length;
      if (i < (pending.spilled ?? 0)) continue;
      if (this.spill) this.spill.push(raw);
      else this.unspilled.push(raw);
    }
    const plain = pending.plain ?? [];
    const cut = tailCut(texts, total, {
      lines: TAIL_ROWS,
      chars: KEPT_CHARS,
      // (A line cut at MAX_LINE_CHARS may keep one character less: never half an emoji.)
      lineChars: MAX_LINE_CHARS - 1,
      plain: (i) => (plain[i] ??= isPlainText(texts[i] as string)),
    });
    // (With no cut, every line may still be kept: all of it waits, if it is not long.)
    const end = holdBack && total - (cut + 1) <= HELD_CHARS ? cut + 1 : total;
    if (end < total) {
      const held = textsFrom(texts, end);
      const heldPlain = plain.slice(texts.length - held.length);
      this.pending = { stream, rich, texts: held, spilled: held.length, plain: heldPlain };
      this.pendingChars = this.heldChars = total - end;
    }
    const reader = new BatchReader(texts, end);
    // Whether the next batch starts a line, and whether lines are being counted out up to `cut`.
    let lineStart = false;
    let skipping = false;
    for (let batch = reader.next(); batch; batch = reader.next()) {
      const { text, at } = batch;
      const last = cut - at; // the cut, in this batch's text
      let start = 0;
      for (;;) {
        // Not a line's first piece: it may end a row left open before.
        if (skipping || ((start > 0 || lineStart) && start <= last && this.rows.inTail())) {
          skipping = last >= text.length;
          start = this.skipLines(text, start, Math.min(last, text.length - 1));
        }
        const nl = text.indexOf('\n', start);
        // (A line's `\r\n` ends it as `\n` does.)
        const piece = nl === -1 ? text.slice(start) : text.slice(start, text[nl - 1] === '\r' ? nl - 1 : nl);
        if (nl !== -1 || piece) {
          const { text: shown, before } = applyBackspaces(piece);
          this.addPiece(stream, sanitize(shown), nl !== -1, rich, before);
        }
        if (nl === -1) break;
        start = nl + 1;
      }
      lineStart = text.endsWith('\n');
    }
  }

  /** Counts the whole lines from `start` to the newline at `last` as left out; returns where the rest begins. */
  private skipLines(text: string, start: number, last: number): number {
    let lines = 0;
    for (let nl = text.indexOf('\n', start); nl !== -1 && nl <= last; nl = text.indexOf('\n', nl + 1))
      lines++;
    this.rows.leaveOut(lines);
    return last + 1;
  }

  appendImage(image: ImageOutput, ansi?: string, rich?: number, columns?: number): void {
    this.settle();
    this.version++;
    this.rows.push({
      kind: 'image',
      image,
      ...(ansi !== undefined ? { ansi } : {}),
      ...(columns !== undefined ? { columns } : {}),
      ...(rich !== undefined ? { rich } : {}),
    });
  }

  /**
   * clear_output(): everything shown so far goes, as in Jupyter (saved notebooks keep only what
   * follows). A spill file begun before is closed; it is no longer named.
   */
  clear(): void {
    this.settle();
    this.version++;
    this.rows.clear();
    this.rich = [];
    this.errors = [];
    this.spill?.end();
    this.spill = undefined;
    this.unspilled = [];
  }

  /** Keeps an error's name and value for saving (at most RICH_LIMIT). */
  addError(error: { ename: string; evalue: string }): void {
    if (this.errors.length < RICH_LIMIT) this.errors.push({ ename: error.ename, evalue: error.evalue });
  }

  /** Keeps a bundle for saving; returns its index (undefined once RICH_LIMIT are kept). */
  addRich(output: RichOutput): number | undefined {
    if (this.rich.length >= RICH_LIMIT) return undefined;
    this.rich.push(output);
    return this.rich.length - 1;
  }

  /** `erase`: backspaces before the piece's first character, taking characters off the open line. */
  private addPiece(stream: Stream, piece: string, closed: boolean, rich?: number, erase = 0): void {
    const last = this.rows.last();
    // A `\r` at the end moves to the line's start, as a terminal's cursor: the line shows as it
    // is until text comes (a progress indicator that ends its updates with `\r`, or a `\r\n`
    // whose two halves came in two reads).
    let end = piece.length;
    while (end > 0 && piece.charCodeAt(end - 1) === 13) end--;
    const body = end === piece.length ? piece : piece.slice(0, end);
    const cr = lastIndexOfChar(body, '\r');
    const visible = cr === -1 ? body : body.slice(cr + 1);
    const rewind = end < piece.length && !closed;
    let row: TextRow;
    if (last?.kind === 'text' && last.open && last.stream === stream && last.rich === rich) {
      const keep = cr === -1 && (!last.rewind || !body);
      const { open: _, rewind: _r, ...rest } = last;
      let [base, cut] = keep ? [last.text, last.cut ?? 0] : ['', 0];
      if (erase && keep && !last.rewind) {
        // (Characters past MAX_LINE_CHARS go first: they are the line's last.)
        const uncut = Math.min(cut, erase);
        cut -= uncut;
        base = dropLastChars(base, erase - uncut);
      }
      row = this.clamped(closed ? rest : { ...rest, open: true }, base, visible, cut);
      if (rewind) row.rewind = true;
      this.rows.replaceLast(row);
      return;
    }
    if (!visible && !closed) return;
    row = { kind: 'text', stream, text: '', ...(rich !== undefined ? { rich } : {}) };
    if (!closed) row.open = true;
    if (rewind) row.rewind = true;
    this.rows.push(this.clamped(row, '', visible, 0));
  }

  /** `row` with `base + more` as its text, cut at MAX_LINE_CHARS. */
  private clamped(row: TextRow, base: string, more: string, cut: number): TextRow {
    // (Never between the halves of a character outside the BMP, an emoji: a lone half would
    // show as a replacement character, and a notebook saved with it is no valid UTF-8.)
    // A row cut already takes nothing more: its line was clamped before an emoji that did not fit.
    const room =
      cut > 0
        ? 0
        : more.length <= MAX_LINE_CHARS - base.length
          ? more.length
          : cutPoint(more, Math.max(0, MAX_LINE_CHARS - base.length));
    const out: TextRow = {
      ...row,
      text: detached(room === more.length ? base + more : base + more.slice(0, room)),
    };
    const left = cut + more.length - room;
    if (left) {
      out.cut = left;
      this.overflow();
    } else delete out.cut;
    return out;
  }

  /** Something is left out: from now on the whole text output goes to the spill file too. */
  private overflow(): void {
    if (this.spill) return;
    this.spill = this.openSpill();
    for (const text of this.unspilled) this.spill.push(text);
    this.unspilled = [];
  }

  /** Ends the spill file (the cell is over). */
  end(): void {
    this.settle();
    this.spill?.end();
    this.unspilled = [];
  }

  snapshot(): Output {
    this.settle();
    return {
      ...this.rows.snapshot(),
      rich: this.rich.slice(),
      ...(this.errors.length ? { errors: this.errors.slice() } : {}),
      ...(this.spill ? { spill: this.spill.where } : {}),
    };
  }
}

/** All rows, in order, with the place of the rows left out. */
export function rowsOf(output: Output): Row[] {
  return [...output.head, ...output.tail];
}

/** Where the rest of the output is, for the note under a cell. */
export function spillNote(output: Output): string | undefined {
  if (!output.spill) return undefined;
  const lines = output.omitted ? `${output.omitted} lines not kept` : 'long lines cut';
  if (output.spill.path) return `… ${lines}; the whole output is in ${output.spill.path}`;
  if (output.spill.error) return `… ${lines}; the whole output could not be saved: ${output.spill.error}`;
  return `… ${lines}`;
}

/** An output of plain text (the notebook's own messages). */
export function textOutput(stream: Stream, text: string): Output {
  const buffer = new OutputBuffer(() => ({ push() {}, end() {}, where: {} }));
  buffer.appendText(stream, text);
  return buffer.snapshot();
}
