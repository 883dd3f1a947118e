/**
 * What the short commands load (issue 13, "commands that start fast"): `--version`, `run` and
 * `tool` load no package file from node_modules at all. commander, which every command needs, is
 * bundled into the CLI (scripts/bundle-cli.mjs): imported from node_modules, a CommonJS package
 * read from ESM, it was seven files resolved and wrapped on every call.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const BIN = fileURLToPath(new URL('../../bin/omp-eval.js', import.meta.url));

/** Prints, as the process ends, the CommonJS files it loaded from node_modules. */
const HOOK = `data:text/javascript,${encodeURIComponent(`
import Module from 'node:module';
process.on('exit', () => {
  const files = Object.keys(Module._cache).filter((f) => f.includes('node_modules'));
  process.stderr.write('\\nloaded: ' + JSON.stringify(files) + '\\n');
});
`)}`;

/**
 * The caches of these calls are their own (the runner's cache is under $TMPDIR): the records of
 * other tests' interpreters, written to the shared cache at the same time, would make a call here
 * write its record again.
 */
const env = { ...process.env, TMPDIR: mkdtempSync(join(tmpdir(), 'omp-startup-caches-')) };

function loadedBy(args: string[], input = ''): { files: string[]; stdout: string } {
  const child = spawnSync(process.execPath, ['--import', HOOK, BIN, ...args], {
    input,
    encoding: 'utf8',
    env,
  });
  const line = child.stderr.split('\n').find((l) => l.startsWith('loaded: '));
  expect(line, `no report; stderr: ${child.stderr}`).toBeDefined();
  return { files: JSON.parse((line as string).slice('loaded: '.length)), stdout: child.stdout };
}

describe('the short commands load no package from node_modules', () => {
  it('--version', () => {
    const { files, stdout } = loadedBy(['--version']);
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    expect(stdout.trim()).toBe(pkg.version);
    expect(files).toEqual([]);
  });

  it('run and tool, once the first calls have set the caches up', () => {
    const script = join(mkdtempSync(join(tmpdir(), 'omp-startup-')), 'one.py');
    writeFileSync(script, 'print(6 * 7)\n');
    // (on a new machine the first call probes the interpreter, with execa, and writes the
    // kernel's bytecode, and the second records its check, with write-file-atomic: the calls
    // after them do neither)
    for (let i = 0; i < 2; i++) expect(loadedBy(['run', script]).stdout).toBe('42\n');
    const run = loadedBy(['run', script]);
    expect(run.stdout).toBe('42\n');
    expect(run.files).toEqual([]);
    // (tool's kernel gets the filtered environment, run's the whole one: a spawn recipe of its own,
    // which its first call records)
    const call = JSON.stringify({ cells: [{ language: 'py', code: '6 * 7' }] });
    expect(loadedBy(['tool'], call).stdout).toContain('42');
    const tool = loadedBy(['tool'], call);
    expect(tool.stdout).toContain('42');
    expect(tool.files).toEqual([]);
  });
});
