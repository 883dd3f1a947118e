/** Issue 14 item 19: the history file under concurrency, crashes, caps and an unwritable home. */
import { execFileSync, spawn } from 'node:child_process';
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import {
  addToHistory,
  historyPath,
  loadHistory,
  MAX_ENTRY_CHARS,
  MAX_FILE_CHARS,
} from '../../src/tui/session/history.js';
import { waitFor } from '../helpers/kernel.js';

const HISTORY_JS = new URL('../../dist/src/tui/session/history.js', import.meta.url).pathname;
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

/**
 * Loads the history in a process of its own, as the notebook does at its start, and adds one
 * entry: a read that blocks (a FIFO) would block that process, not the test's.
 */
async function loadElsewhere(file: string) {
  const script = `
    import { addToHistory, loadHistory } from '${HISTORY_JS}';
    const notices = [];
    const loaded = loadHistory(${JSON.stringify(file)}, (m) => notices.push(m));
    const added = addToHistory(loaded, 'x = 1', ${JSON.stringify(file)}, (m) => notices.push(m));
    process.stdout.write(JSON.stringify({ loaded, added, notices }));
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  onTestFinished(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    out += d;
  });
  let code: number | null | undefined;
  child.once('close', (c) => {
    code = c;
  });
  await waitFor(() => code !== undefined, 30_000, 'the history to load (a read that blocks never ends)');
  expect(code).toBe(0);
  return JSON.parse(out) as { loaded: string[]; added: string[]; notices: string[] };
}

describe('the history file', () => {
  it('a FIFO at its path: loading returns at once, with one notice, and nothing is written over it', async () => {
    const file = freshFile();
    mkdirSync(join(file, '..'), { recursive: true });
    execFileSync('mkfifo', [file]);
    const { loaded, added, notices } = await loadElsewhere(file);
    expect(loaded).toEqual([]);
    expect(added).toEqual(['x = 1']); // the session's history, in memory
    expect(notices).toEqual([
      `history: ${file} is a FIFO, not a regular file; this session has no saved history and writes none`,
    ]);
    expect(lstatSync(file).isFIFO()).toBe(true);
    expect(readdirSync(join(file, '..'))).toEqual(['history.json']);
  });

  it('a link at its path is not followed: one notice, the file it names is left alone', async () => {
    const file = freshFile();
    mkdirSync(join(file, '..'), { recursive: true });
    const target = join(file, '..', '..', 'elsewhere.json');
    writeFileSync(target, JSON.stringify(['from the link']));
    symlinkSync(target, file);
    const { loaded, notices } = await loadElsewhere(file);
    expect(loaded).toEqual([]);
    expect(notices).toEqual([
      `history: ${file} is a symbolic link, not a regular file; this session has no saved history and writes none`,
    ]);
    expect(lstatSync(file).isSymbolicLink()).toBe(true);
  });

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
