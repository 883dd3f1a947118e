/** Issue 14 item 19: the history file under concurrency, crashes, caps and an unwritable home. */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  addToHistory,
  historyPath,
  loadHistory,
  MAX_ENTRY_CHARS,
  MAX_FILE_CHARS,
} from '../../src/tui/lib/history.js';

const HISTORY_JS = new URL('../../dist/src/tui/lib/history.js', import.meta.url).pathname;
const freshFile = () => join(mkdtempSync(join(tmpdir(), 'omp-hist-')), 'omp-eval', 'history.json');

/** A notebook-like process adding `count` entries named `tag-i`, one Enter at a time. */
function writer(file: string, tag: string, count: number): Promise<number | null> {
  const script = `
    import { addToHistory } from '${HISTORY_JS}';
    let h = [];
    for (let i = 0; i < ${count}; i++) h = addToHistory(h, '${tag}-' + i, ${JSON.stringify(file)});
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: 'inherit' });
  return new Promise((resolve) => child.once('close', resolve));
}

describe('the history file', () => {
  it('loses no entry when two notebooks add 200 entries each at once', async () => {
    const file = freshFile();
    expect(await Promise.all([writer(file, 'a', 200), writer(file, 'b', 200)])).toEqual([0, 0]);
    const saved = loadHistory(file);
    expect(saved).toHaveLength(400);
    expect(new Set(saved)).toEqual(
      new Set(['a', 'b'].flatMap((t) => [...Array(200).keys()].map((i) => `${t}-${i}`))),
    );
    expect(readdirSync(join(file, '..'))).toEqual(['history.json']);
  });

  it('is 0600 in a 0700 directory, and a group-readable omp-eval directory is tightened', () => {
    const file = freshFile();
    addToHistory([], 'x = 1', file);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(file, '..')).mode & 0o777).toBe(0o700);
    const other = freshFile();
    mkdirSync(join(other, '..'), { mode: 0o755 });
    addToHistory([], 'y = 2', other);
    expect(statSync(join(other, '..')).mode & 0o777).toBe(0o700);
  });

  it('removes what a writer killed mid-write left behind', () => {
    const file = freshFile();
    addToHistory([], 'first', file);
    // What a SIGKILLed writer leaves: write-file-atomic's temporary file (and an older version's).
    writeFileSync(`${file}.3735928559`, '["half');
    writeFileSync(`${file}.4242.tmp`, '["half');
    addToHistory([], 'second', file);
    expect(readdirSync(join(file, '..'))).toEqual(['history.json']);
    expect(loadHistory(file)).toEqual(['first', 'second']);
  });

  it('keeps a huge cell for the session only, with a notice, and stays small', () => {
    const file = freshFile();
    const notices: string[] = [];
    let h: string[] = [];
    const big = 'x'.repeat(MAX_ENTRY_CHARS + 1);
    for (let i = 0; i < 3; i++) h = addToHistory(h, `${big}${i}`, file, (m) => notices.push(m));
    h = addToHistory(h, 'small', file, (m) => notices.push(m));
    expect(h.at(-1)).toBe('small');
    expect(h).toContain(`${big}2`);
    expect(loadHistory(file)).toEqual(['small']);
    expect(notices).toHaveLength(3);
    expect(notices[0]).toMatch(/kept for this session only; cells over 100,000 characters are not saved/);
    // Many entries near the cap: the file holds at most MAX_FILE_CHARS of them, newest kept.
    const near = 'y'.repeat(MAX_ENTRY_CHARS - 10);
    for (let i = 0; i < 50; i++) h = addToHistory(h, `${near}${i}`, file);
    expect(statSync(file).size).toBeLessThan(MAX_FILE_CHARS + 10_000);
    expect(loadHistory(file).at(-1)).toBe(`${near}49`);
  });

  it('an unwritable home gives one notice, and the history goes on in memory', () => {
    const notFile = join(mkdtempSync(join(tmpdir(), 'omp-hist-')), 'home');
    writeFileSync(notFile, ''); // a home that is a file: nothing can be created under it
    const file = historyPath({ HOME: notFile });
    const notices: string[] = [];
    let h: string[] = [];
    for (const cell of ['a = 1', 'b = 2', 'c = 3']) h = addToHistory(h, cell, file, (m) => notices.push(m));
    expect(h).toEqual(['a = 1', 'b = 2', 'c = 3']);
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatch(
      /^history: cannot save to .*history.json \(.*\); this session's history is kept in memory only$/,
    );
  });
});
