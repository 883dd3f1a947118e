/**
 * The pieces behind bounded, honest results, in process: the sink's cut of giant lines, the
 * collector's caps, status lines, bounded errors, the advice text, the artifacts folder's caps
 * and private fallback, and config files that are not files.
 */
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { boundedError } from '../../src/eval/executor/results.js';
import {
  ArtifactFile,
  artifactDir,
  configureArtifacts,
  DEFAULT_ARTIFACT_LIMITS,
  resolveArtifact,
} from '../../src/eval/output/artifact.js';
import { ResultCollector } from '../../src/eval/output/collected.js';
import { statusLine } from '../../src/eval/output/display.js';
import { OutputSink } from '../../src/eval/output/outputSink.js';
import { isPrivateDir, privateDir } from '../../src/eval/output/privateDir.js';
import { oneLine, plainText } from '../../src/eval/output/text.js';
import { readConfigFile } from '../../src/eval/settings.js';
import { renderToolText, toolSinkLimits } from '../../src/eval/tool.js';
import { cellResult } from '../helpers/results.js';

const uid = process.getuid?.() ?? 0;
const scratch = () => mkdtempSync(join(tmpdir(), 'omp-bounds-'));

/** Runs `body` with TMPDIR at a folder of its own (the artifacts go there). */
function withTmp<T>(body: (tmp: string) => T): T {
  const tmp = scratch();
  vi.stubEnv('TMPDIR', tmp);
  try {
    return body(tmp);
  } finally {
    vi.unstubAllEnvs();
  }
}

afterEach(() => configureArtifacts(DEFAULT_ARTIFACT_LIMITS));

describe('the sink: never one whole giant piece', () => {
  it('a line longer than the tail: its start in the head, its end in the tail', () => {
    const sink = new OutputSink({ headChars: 100, tailChars: 150 });
    sink.push(`${'a'.repeat(500)}${'b'.repeat(500)}\n`);
    sink.end();
    expect(sink.text).toMatch(
      /^a{100}\n… \[751 chars omitted; full output: artifact:\/\/[\w-]+ \([^)]+\)\]\nb{149}\n$/,
    );
    expect(readFileSync(sink.truncation?.artifactPath as string, 'utf8')).toBe(
      `${'a'.repeat(500)}${'b'.repeat(500)}\n`,
    );
  });

  it('lines longer than the tail among short ones, whatever the chunks', () => {
    const text = `short\n${'x'.repeat(300)}\nmid\n${'y'.repeat(300)}\nend\n`;
    const whole = new OutputSink({ headChars: 50, tailChars: 100 });
    whole.push(text);
    whole.end();
    const bytes = new OutputSink({ headChars: 50, tailChars: 100 });
    for (const ch of text) bytes.push(ch);
    bytes.end();
    const anonymous = (t: string) => t.replace(/artifact:\/\/\S+ \([^)]*\)/, 'ARTIFACT');
    expect(anonymous(whole.text)).toBe(anonymous(bytes.text));
    expect(whole.text.length).toBeLessThan(50 + 100 + 200);
    expect(whole.text.startsWith(`short\n${'x'.repeat(44)}\n… [3 lines, 562 chars omitted;`)).toBe(true);
    expect(whole.text.endsWith(')]\nend\n')).toBe(true);
  });
});

describe('caller text', () => {
  it('plainText drops every escape and control, oneLine makes one short line of it', () => {
    expect(plainText('\x1b[31mred\x1b[0m\r\nnext\x07')).toBe('red\nnext');
    expect(oneLine('a\nb\tc\x1b[2J', 200)).toBe('a b c');
    expect(oneLine('x'.repeat(300), 10)).toBe(`${'x'.repeat(9)}…`);
  });
});

describe('status lines', () => {
  it('one short line per status event, none for bookkeeping or a call that started', () => {
    expect(statusLine({ op: 'log', message: 'a\nb' })).toBe('[log] a b');
    expect(statusLine({ op: 'phase', title: 'two' })).toBe('[phase] two');
    expect(statusLine({ op: 'read', path: 'f.txt', lines: 2, total: 9 })).toBe('[read f.txt: 2 of 9 lines]');
    expect(statusLine({ op: 'write', path: 'f', chars: 3 })).toBe('[write f: 3 chars]');
    expect(statusLine({ op: 'append', path: 'f', chars: 3 })).toBe('[append f: 3 chars]');
    expect(statusLine({ op: 'tree', path: '.', entries: 4 })).toBe('[tree .: 4 entries]');
    expect(statusLine({ op: 'diff', changed: 2 })).toBe('[diff: 2 lines changed]');
    expect(statusLine({ op: 'agent', state: 'failed', label: 'task', error: 'no' })).toBe(
      '[agent task failed: no]',
    );
    expect(statusLine({ op: 'completion', state: 'finished', label: 'completion' })).toBe(
      '[completion finished]',
    );
    expect(statusLine({ op: 'agent', state: 'started', label: 'task' })).toBeUndefined();
    expect(statusLine({ op: 'timeout-pause' })).toBeUndefined();
    expect(statusLine({ op: 'custom', n: 1 })).toBe('[custom] {"n":1}');
    expect(statusLine({ op: 'bare' })).toBe('[bare]');
  });
});

describe('the result collector', () => {
  const png = (bytes: number) => ({
    mime: 'image/png' as const,
    data: Buffer.alloc(bytes, 1).toString('base64'),
  });

  it('keeps images up to the count and size caps and saves the rest, each in a file', () =>
    withTmp(() => {
      const c = new ResultCollector({ images: 2, imageChars: 1000 });
      c.addImage(png(300)); // 400 chars
      c.addImage(png(900)); // over the size cap
      c.addImage(png(300));
      c.addImage(png(300)); // over the count cap
      c.addImage({ mime: 'image/jpeg', data: Buffer.from('jpeg').toString('base64') });
      expect(c.images).toHaveLength(2);
      const [notice] = c.finish();
      expect(notice).toMatch(
        /^3 images \(\d+ kB\) left out of the result, which keeps at most 2 images .*; saved as /,
      );
      // each named as a resource and a file (issue 42): artifact://<id> (<path>)
      const named = /saved as (.*)$/.exec(notice as string)?.[1]?.split(', ') ?? [];
      expect(named).toHaveLength(3);
      const [, uri, file] = /^(artifact:\/\/[\w-]+) \((.*)\)$/.exec(named[2] as string) ?? [];
      expect(readFileSync(file as string).toString()).toBe('jpeg');
      expect(file?.endsWith('.jpg')).toBe(true);
      expect(resolveArtifact(uri as string)).toBe(file);
    }));

  it('keeps JSON up to the caps and writes the rest one per line; bounds status events', () =>
    withTmp(() => {
      const c = new ResultCollector({ json: 2, jsonChars: 30, statusEvents: 2, statusFieldChars: 5 });
      for (let i = 0; i < 5; i++) c.addJson({ i });
      c.addJson({ big: 'x'.repeat(100) });
      c.addStatus({ op: 'log', message: 'long message' });
      c.addStatus({ op: 'x', data: { a: 'bbbbbbbbbb' } });
      c.addStatus({ op: 'dropped' });
      expect(c.json).toEqual([{ i: 0 }, { i: 1 }]);
      expect(c.statusEvents).toEqual([
        { op: 'log', message: 'long …' },
        { op: 'x', data: '{"a":…' },
      ]);
      const [json, status] = c.finish();
      const path = /\(([^)]+)\)$/.exec(json as string)?.[1] as string;
      expect(
        readFileSync(path, 'utf8')
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l)),
      ).toEqual([{ i: 2 }, { i: 3 }, { i: 4 }, { big: 'x'.repeat(100) }]);
      expect(status).toBe('1 status event left out of statusEvents (at most 2); their lines are in the text');
    }));

  it("status events' strings are plain text, cut on whole characters", () =>
    withTmp(() => {
      const c = new ResultCollector({ statusFieldChars: 4 });
      c.addStatus({ op: 'log', message: 'l1\x1b]0;pwn\x07\x1b[2J' });
      c.addStatus({ op: 'tag', title: 'ab\x00c😀😀' });
      expect(c.statusEvents).toEqual([
        { op: 'log', message: 'l1' },
        { op: 'tag', title: 'abc…' },
      ]);
    }));

  it('says so when what was left out could not be saved', () => {
    vi.stubEnv('TMPDIR', join(scratch(), 'gone'));
    try {
      const c = new ResultCollector({ images: 0, json: 0 });
      c.addImage(png(3));
      c.addJson(1);
      const [images, json] = c.finish();
      expect(images).toMatch(/; not saved: .*ENOENT/);
      expect(json).toMatch(/; not saved: .*ENOENT/);
    } finally {
      vi.unstubAllEnvs();
    }
  });
});

describe('bounded errors', () => {
  it('cuts a huge value and keeps the end of a long traceback', () => {
    const e = boundedError({
      ename: 'ValueError',
      evalue: 'v'.repeat(20_000),
      traceback: Array.from({ length: 2000 }, (_, i) => `frame ${i} ${'.'.repeat(100)}`),
    });
    expect(e.evalue.length).toBeLessThan(10_100);
    expect(e.traceback.at(-1)).toMatch(/^frame 1999/);
    expect(e.traceback[0]).toMatch(/^… \[\d+ earlier lines of the traceback cut\]$/);
    expect(e.traceback.join('').length).toBeLessThan(60_000);
  });
});

describe('the advice text', () => {
  it('gives no "Fix only" for an unavailable backend, a retry or a dead kernel', () => {
    for (const over of [
      { error: { ename: 'BackendUnavailable', evalue: '', traceback: [] } },
      { error: { ename: 'EvalError', evalue: '', traceback: [] } },
      { retried: true, error: { ename: 'ValueError', evalue: '', traceback: [] } },
      { error: { ename: 'KernelDied', evalue: '', traceback: [] } },
    ]) {
      const text = renderToolText([
        cellResult(),
        cellResult({ index: 1, status: 'error', exitCode: 1, ...over }),
      ]);
      expect(text).not.toContain('Fix only');
    }
  });

  it('shares the budget among the cells of a call, and clamps a text that is still too long', () => {
    expect(toolSinkLimits(1)).toEqual({ headChars: 20_000, tailChars: 30_000 });
    expect(toolSinkLimits(10)).toEqual({ headChars: 2_000, tailChars: 3_000 });
    expect(toolSinkLimits(100)).toEqual({ headChars: 2_000, tailChars: 3_000 });
    withTmp(() => {
      const cells = Array.from({ length: 30 }, (_, i) =>
        cellResult({ index: i, text: `${'z'.repeat(5000)}\n` }),
      );
      const text = renderToolText(cells);
      expect(text.length).toBeLessThan(62_000);
      expect(text).toMatch(/chars omitted; full output: artifact:\/\//);
    });
  });
});

describe('the artifacts folder', () => {
  /** A 3,000-byte folder holding four old 900-byte artifacts, oldest first: two must go. */
  const fullFolder = () => {
    configureArtifacts({ maxFileBytes: 1000, maxTotalBytes: 3000 });
    const dir = artifactDir();
    const now = Date.now() / 1000;
    for (let i = 1; i <= 4; i++) {
      writeFileSync(join(dir, `old-${i}.txt`), 'o'.repeat(900));
      utimesSync(join(dir, `old-${i}.txt`), now - 100 + i, now - 100 + i);
    }
    return dir;
  };

  it('caps one file and says so; removes the oldest files to stay under its total', () =>
    withTmp(() => {
      const dir = fullFolder();
      const file = ArtifactFile.create() as ArtifactFile;
      file.write('é'.repeat(400_000)); // more than a batch, two bytes a character
      file.close();
      expect(statSync(file.path).size).toBeLessThanOrEqual(1000);
      expect(file.savedChars).toBe(500);
      expect(file.error).toBe('the artifact cap of 1 kB was reached');
      expect(readdirSync(dir).filter((n) => n.startsWith('old-'))).toEqual(['old-3.txt', 'old-4.txt']);
      const image = ArtifactFile.create('png') as ArtifactFile;
      image.writeBytes(Buffer.alloc(2000));
      expect(image.error).toMatch(/would exceed the artifact cap/);
    }));

  it('keeps small and large pieces in order, whichever are joined and which go out alone', () =>
    withTmp(() => {
      const file = ArtifactFile.create() as ArtifactFile;
      const pieces: string[] = [];
      for (let i = 0; i < 40; i++) pieces.push(i % 3 ? `small ${i}\n` : `${String(i).repeat(30_000)}\n`);
      for (const piece of pieces) file.write(piece);
      file.close();
      expect(readFileSync(file.path, 'utf8')).toBe(pieces.join(''));
      expect(file.savedChars).toBe(pieces.join('').length);
      expect(file.error).toBeUndefined();
    }));

  it('is tidied on request, before any artifact is written (the notebook does it at start)', () =>
    withTmp(() => {
      const dir = fullFolder();
      ArtifactFile.tidy();
      expect(readdirSync(dir).sort()).toEqual(['old-3.txt', 'old-4.txt']);
    }));

  it("never removes a file written to within the last minute (another process's running cell)", () =>
    withTmp(() => {
      configureArtifacts({ maxFileBytes: 1000, maxTotalBytes: 3000 });
      const dir = artifactDir();
      writeFileSync(join(dir, 'live.txt'), 'l'.repeat(5000)); // over the total, and fresh
      const now = Date.now() / 1000;
      writeFileSync(join(dir, 'old.txt'), 'o'.repeat(900));
      utimesSync(join(dir, 'old.txt'), now - 100, now - 100);
      const file = ArtifactFile.create() as ArtifactFile;
      file.close();
      expect(readdirSync(dir).sort()).toEqual([basename(file.path), 'live.txt'].sort());
    }));

  it('falls back to a private folder, the same one each time, when the name is taken', () => {
    const base = scratch();
    const taken = join(base, `omp-eval-artifacts-${uid}`);
    symlinkSync('/tmp', taken);
    const warned: string[] = [];
    const logger = { trace: () => {}, warn: (m: string) => warned.push(m) };
    const first = privateDir(base, 'omp-eval-artifacts', logger);
    expect(first.startsWith(`${taken}-`)).toBe(true);
    expect(isPrivateDir(first)).toBe(true);
    expect(privateDir(base, 'omp-eval-artifacts')).toBe(first);
    expect(warned[0]).toMatch(/is not a private directory of this user; using /);
    // A folder of ours that others can write to is not private either.
    const open = join(base, 'open');
    mkdirSync(open);
    chmodSync(open, 0o777);
    expect(isPrivateDir(open)).toBe(false);
    // Fallbacks left by two runs that raced: the older one goes once it is a day old.
    const extra = `${taken}-Zz99Zz`;
    mkdirSync(extra, { mode: 0o700 });
    const old = Date.now() / 1000 - 2 * 24 * 60 * 60;
    utimesSync(extra, old, old);
    expect(privateDir(base, 'omp-eval-artifacts')).toBe(first);
    expect(existsSync(extra)).toBe(false);
  });
});

describe('config files that are not files', () => {
  it('names the kind of file, and reads a file with a byte order mark', () => {
    const dir = scratch();
    const fifo = join(dir, 'fifo.json');
    execFileSync('mkfifo', [fifo]);
    expect(() => readConfigFile('/dev/zero')).toThrow(
      'the config file /dev/zero is a character device, not a JSON file',
    );
    expect(() => readConfigFile(fifo)).toThrow(`the config file ${fifo} is a FIFO, not a JSON file`);
    expect(() => readConfigFile(dir)).toThrow(`the config file ${dir} is a directory, not a JSON file`);
    const big = join(dir, 'big.json');
    writeFileSync(big, ' '.repeat(2 << 20));
    expect(() => readConfigFile(big)).toThrow(/is larger than 1024 KiB/);
    const bom = join(dir, 'bom.json');
    writeFileSync(bom, '\uFEFF{"eval": {"timeout": 7}}');
    expect(readConfigFile(bom)).toEqual({ 'eval.timeout': 7 });
  });
});
