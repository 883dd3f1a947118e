/**
 * `run` and `tool` through the real bin/omp-eval.js, loaded from the classic script with V8's code
 * cache (src/eval/launch/codeCache.ts): the cache is written once in a private directory and used
 * by later calls, and every way it can be wrong or missing gives the same results (a garbage file,
 * a directory it cannot write, none at all, the trick off, a command line the guess leaves alone).
 */
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.js';

const TOOL_INPUT = JSON.stringify({ cells: [{ language: 'py', code: 'sum(range(10))' }] });
const uid = process.getuid?.() ?? -1;
const cacheDirIn = (tmp: string) =>
  join(tmp, uid >= 0 ? `omp-eval-code-cache-${uid}` : 'omp-eval-code-cache');
const cacheFiles = (dir: string) => readdirSync(dir).filter((name) => name.endsWith('.bin'));

function workspace() {
  const dir = mkdtempSync(join(tmpdir(), 'omp-code-cache-cli-'));
  writeFileSync(join(dir, 'cell.py'), 'print(6 * 7)\n');
  writeFileSync(join(dir, 'cell.js'), 'console.log(6 * 7)\n');
  return { dir, tmp: mkdtempSync(join(dir, 'tmp-')) };
}

/** `run` of a Python and a JavaScript script and `tool`, checked; TMPDIR is `tmp`. */
async function callsGiveTheirResults(dir: string, tmp: string, env: Record<string, string> = {}) {
  const opts = { cwd: dir, env: { TMPDIR: tmp, ...env } };
  for (const script of ['cell.py', 'cell.js']) {
    const ran = await cli(['run', script], opts);
    expect({ code: ran.code, stdout: ran.stdout, stderr: ran.stderr }).toEqual({
      code: 0,
      stdout: '42\n',
      stderr: '',
    });
  }
  const tool = await cli(['tool'], { ...opts, input: TOOL_INPUT });
  expect(tool.stderr).toBe('');
  expect(JSON.parse(tool.stdout).cells[0]).toMatchObject({ status: 'ok', text: '45\n' });
}

describe("run and tool's code cache", () => {
  it('is written by the first call of each command in a private directory, and used by the next', async () => {
    const { dir, tmp } = workspace();
    await callsGiveTheirResults(dir, tmp);
    const cache = cacheDirIn(tmp);
    expect(statSync(cache).mode & 0o777).toBe(0o700);
    const files = cacheFiles(cache);
    expect(files.map((name) => name.split('-')[1]).sort()).toEqual(['run', 'tool']);
    const before = files.map((name) => statSync(join(cache, name)));
    for (const st of before) expect(st.mode & 0o777).toBe(0o600);
    await callsGiveTheirResults(dir, tmp);
    // (taken as it was: a cache missing or rejected would have been written anew, a new file)
    expect(cacheFiles(cache)).toEqual(files);
    const after = files.map((name) => statSync(join(cache, name)));
    expect(after.map((st) => [st.ino, st.mtimeMs])).toEqual(before.map((st) => [st.ino, st.mtimeMs]));
  });

  it('garbage in the cache: the same results, and the cache written anew', async () => {
    const { dir, tmp } = workspace();
    await callsGiveTheirResults(dir, tmp);
    const cache = cacheDirIn(tmp);
    for (const name of cacheFiles(cache)) writeFileSync(join(cache, name), 'garbage');
    await callsGiveTheirResults(dir, tmp);
    for (const name of cacheFiles(cache))
      expect(readFileSync(join(cache, name), 'utf8').startsWith('omp-eval code cache')).toBe(true);
  });

  it('a cache it cannot write, or a cache directory that is not one: the same results', async () => {
    const { dir, tmp } = workspace();
    await callsGiveTheirResults(dir, tmp);
    const cache = cacheDirIn(tmp);
    const files = cacheFiles(cache);
    // (a directory where each file goes: neither read nor replaced, whoever runs the test)
    for (const name of files) {
      rmSync(join(cache, name));
      mkdirSync(join(cache, name));
    }
    if (uid > 0) chmodSync(cache, 0o500);
    await callsGiveTheirResults(dir, tmp);
    chmodSync(cache, 0o700);
    for (const name of files) expect(statSync(join(cache, name)).isDirectory()).toBe(true);

    // (a file where the directory goes: a private fallback beside it)
    const other = mkdtempSync(join(dir, 'tmp-'));
    writeFileSync(cacheDirIn(other), '');
    await callsGiveTheirResults(dir, other);
    await callsGiveTheirResults(dir, other);
  });

  it('OMP_EVAL_PERF_OFF=code-cache, or flags the guess does not read: the ES modules, the same results', async () => {
    const { dir, tmp } = workspace();
    await callsGiveTheirResults(dir, tmp, { OMP_EVAL_PERF_OFF: 'code-cache' });
    const other = mkdtempSync(join(dir, 'tmp-'));
    const ran = await cli(['--sandbox', 'off', 'run', 'cell.py'], { cwd: dir, env: { TMPDIR: other } });
    expect(ran.stdout).toBe('42\n');
    // No cache is written. (A sandbox whose workspace holds the temp dir, as under test:sandbox,
    // makes the directory, empty, to keep it read-only: places.ts.)
    for (const unused of [tmp, other]) {
      const cache = cacheDirIn(unused);
      expect(existsSync(cache) ? readdirSync(cache) : []).toEqual([]);
    }
  });
});
