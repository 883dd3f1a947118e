/**
 * Text pieces passed on in order, the small ones next to each other joined into one and each
 * piece of at least `direct` characters on its own: many small writes cost a call each, and
 * joining a large piece with its neighbours would copy it once more.
 */
export function joinSmall(pieces: readonly string[], direct: number, send: (text: string) => void): void {
  let small: string[] = [];
  for (const piece of pieces) {
    if (piece.length < direct) {
      small.push(piece);
      continue;
    }
    if (small.length) send(small.join(''));
    small = [];
    send(piece);
  }
  if (small.length) send(small.length === 1 ? (small[0] as string) : small.join(''));
}
