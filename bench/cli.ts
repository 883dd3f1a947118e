/**
 * How fast the commands start, side by side in one run (each round runs every command once, so a
 * change of load hits all of them alike): `omp-eval --version` against `node -e 0`; a `tool` call
 * printing 200,000 lines against the same script under `run`. (`run` and `tool` of one small cell
 * against `node -e 0` + `python -c pass`: waits.ts, which times whole process trees.)
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { resolvePython } from '../src/eval/launch/python.js';
import { type BenchRow, median, ms, scratchDir } from './lib.js';

const BIN = fileURLToPath(new URL('../../bin/omp-eval.js', import.meta.url));
const ROUNDS = 11;
const LINES = 200_000;

/** Milliseconds from spawn to exit, with `input` on stdin and stdout drained. */
function timed(cmd: string, args: string[], input = ''): Promise<number> {
  return new Promise((resolve, reject) => {
    const t = performance.now();
    const child = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'inherit'] });
    child.stdout.resume();
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolve(performance.now() - t);
      else reject(new Error(`${cmd} ${args.join(' ')} exited ${code}`));
    });
    child.stdin.end(input);
  });
}

export async function cliBench(): Promise<BenchRow[]> {
  const python = await resolvePython({ cwd: process.cwd() });
  const dir = scratchDir('omp-bench-cli-');
  const small = join(dir, 'small.py');
  const loop = `for i in range(${LINES}):\n    print('${'x'.repeat(42)}', i)`;
  const big = join(dir, 'lines.py');
  writeFileSync(small, 'print(1)\n');
  writeFileSync(big, `${loop}\n`);
  // Lines of a megabyte (an agent printing a long JSON document or a data dump, 256 MB in all).
  const megaLines =
    'import sys\nline = "z" * (2**20 - 1) + "\\n"\nfor _ in range(256):\n    sys.stdout.write(line)';
  const mega = join(dir, 'mega.py');
  writeFileSync(mega, `${megaLines}\n`);
  // A script that reads stdin whole, given one line of 16 MB (no newline in it).
  const reader = join(dir, 'read.py');
  writeFileSync(reader, 'import sys\nprint(len(sys.stdin.read()))\n');
  const longLine = 'a'.repeat(16_000_000);
  const tool = (code: string) => JSON.stringify({ cells: [{ language: 'py', code }] });
  const commands: Record<string, () => Promise<number>> = {
    node: () => timed(process.execPath, ['-e', '0']),
    version: () => timed(process.execPath, [BIN, '--version']),
    run: () => timed(process.execPath, [BIN, 'run', small]),
    runLines: () => timed(process.execPath, [BIN, 'run', big]),
    toolLines: () => timed(process.execPath, [BIN, 'tool'], tool(loop)),
    runMega: () => timed(process.execPath, [BIN, 'run', mega]),
    toolMega: () => timed(process.execPath, [BIN, 'tool'], tool(megaLines)),
    runStdin: () => timed(process.execPath, [BIN, 'run', reader], longLine),
    pythonStdin: () => timed(python.executable, [reader], longLine),
  };
  await commands.run?.(); // warm: the runner cache, the probe cache, the OS's file cache
  const times: Record<string, number[]> = Object.fromEntries(Object.keys(commands).map((k) => [k, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, command] of Object.entries(commands)) times[name]?.push(await command());
  }
  const m = Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)])) as Record<
    string,
    number
  >;
  const node = m.node as number;
  const row = (what: string, omp: number, base: number, baseline: string, limit: number): BenchRow => ({
    what,
    omp: ms(omp),
    baseline: `${ms(base)} (${baseline})`,
    ratio: `${(omp / base).toFixed(2)}×`,
    target: `≤ ${limit}×${omp / base <= limit ? '' : ' MISSED'}`,
  });
  return [
    row('omp-eval --version', m.version as number, node, 'node -e 0', 2),
    // (run of print(1) and tool of 1+1 against node + python: waits.ts, whole process trees)
    row(
      `omp-eval tool printing ${LINES / 1000}k lines`,
      m.toolLines as number,
      m.runLines as number,
      'the same under run',
      1.2,
    ),
    row(
      'omp-eval tool printing 256 lines of 1 MB',
      m.toolMega as number,
      m.runMega as number,
      'the same under run',
      1.2,
    ),
    {
      what: 'omp-eval run reading a 16 MB line from stdin',
      omp: ms(m.runStdin as number),
      baseline: `${ms(m.pythonStdin as number)} (python script < file)`,
      ratio: `${((m.runStdin as number) / (m.pythonStdin as number)).toFixed(2)}×`,
      target: 'report',
    },
  ];
}
