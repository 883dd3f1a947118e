/** Reading a notebook's screen (one row a line): what a test expects once the screen has settled. */

/** The status line of finished cell `n` ("✓ [1] ok · 12 ms"); undefined until the cell has ended. */
export function cellStatus(screen: string, n: number): string | undefined {
  const header = new RegExp(`^\\S+ \\[${n}\\] \\S`);
  return screen
    .split('\n')
    .find((line) => header.test(line))
    ?.trimEnd();
}

/** The last row of `screen` that starts with `start`, without its trailing spaces. */
export function lineStarting(screen: string, start: string): string | undefined {
  return screen
    .split('\n')
    .filter((line) => line.startsWith(start))
    .at(-1)
    ?.trimEnd();
}
