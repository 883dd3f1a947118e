/**
 * Keys typed before the first prompt is drawn: read from the moment the notebook sets raw mode
 * until Ink takes the input, and handed to Ink then, so none is lost (the terminal query used to
 * keep what it read) and Enter is Enter. Keys typed before raw mode went through the terminal's
 * line discipline, which turns Enter's CR into LF (icrnl); read as a key, that LF was Ctrl-J, a new
 * line, and `1+1` Enter typed during start-up never ran. IPython runs it (prompt_toolkit takes LF
 * for Enter): before the prompt is drawn, so does the notebook. After it, Ctrl-J is a new line.
 */

type Chunk = Buffer | string;

export interface EarlyStdin {
  on(event: 'readable', listener: () => void): unknown;
  off(event: 'readable', listener: () => void): unknown;
  read(): Chunk | null;
  unshift(chunk: Buffer): void;
}

const LF = 0x0a;
const CR = 0x0d;

export class EarlyInput {
  private chunks: Buffer[] = [];
  private readonly waiters = new Set<() => void>();
  private released = false;
  private readonly onReadable = () => {
    for (let chunk = this.stdin.read(); chunk !== null; chunk = this.stdin.read())
      this.chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
    for (const wake of this.waiters) wake();
  };

  constructor(private readonly stdin: EarlyStdin) {
    stdin.on('readable', this.onReadable);
  }

  /**
   * What was read so far, a character per byte: escape sequences (the terminal's replies) are
   * ASCII, and the bytes around them go back to the stream unchanged, a UTF-8 character split
   * between two reads included.
   */
  private bytes(): string {
    return Buffer.concat(this.chunks).toString('latin1');
  }

  /** Waits until what was read matches `pattern`, or `timeoutMs`; returns what was read. */
  async until(pattern: RegExp, timeoutMs: number): Promise<string> {
    let wake: () => void = () => {};
    let timer: NodeJS.Timeout | undefined;
    await new Promise<void>((resolve) => {
      wake = () => {
        if (pattern.test(this.bytes())) resolve();
      };
      this.waiters.add(wake);
      timer = setTimeout(resolve, timeoutMs);
      wake();
    });
    clearTimeout(timer);
    this.waiters.delete(wake);
    return this.bytes();
  }

  /** Drops what matches `pattern` (a global expression): the replies to the notebook's queries. */
  remove(pattern: RegExp): void {
    const kept = this.bytes().replace(pattern, '');
    this.chunks = kept ? [Buffer.from(kept, 'latin1')] : [];
  }

  /** Stops reading and puts back what was typed, each LF as the CR of an Enter in raw mode. */
  release(): void {
    if (this.released) return;
    this.released = true;
    this.stdin.off('readable', this.onReadable);
    this.waiters.clear();
    const typed = Buffer.concat(this.chunks);
    this.chunks = [];
    if (!typed.length) return;
    for (let i = typed.indexOf(LF); i !== -1; i = typed.indexOf(LF, i + 1)) typed[i] = CR;
    this.stdin.unshift(typed);
  }
}
