/**
 * Rich output benchmark: a cell that makes 20 matplotlib figures, timed from the request to the
 * last display frame, against the same work in a plain python3 script that saves the figures to
 * PNG files. Both warm (pyplot imported, one round done) and cold (the import included).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Kernel } from '../src/eval/index.js';
import { resolvePython } from '../src/eval/launch/python.js';
import { type BenchRow, median, ms } from './lib.js';

const FIGURES = 20;
const ROUNDS = 7;
const PYTHON = '/usr/bin/python3';

/** The figures' work; the script saves each figure where the kernel displays it. */
const WORK = `for i in range(${FIGURES}):
    fig = plt.figure()
    plt.plot(range(100), [x * i for x in range(100)])
    plt.title("figure %d" % i)`;

/** The baseline: cold (import and one round) at start, then one warm round per line on stdin. */
const SCRIPT = `import json, os, sys, time
t0 = time.perf_counter()
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
out = sys.argv[1]

def work(tag):
    for i in range(${FIGURES}):
        fig = plt.figure()
        plt.plot(range(100), [x * i for x in range(100)])
        plt.title("figure %d" % i)
        fig.savefig(os.path.join(out, "%s-%d.png" % (tag, i)))
        plt.close(fig)

work("cold")
print(json.dumps((time.perf_counter() - t0) * 1000), flush=True)
for n, _ in enumerate(sys.stdin):
    t = time.perf_counter()
    work(n)
    print(json.dumps((time.perf_counter() - t) * 1000), flush=True)
`;

/** A running baseline script: each call of round() is one timed round in it. */
function startScript(path: string, out: string) {
  const child = spawn(PYTHON, [path, out], {
    stdio: ['pipe', 'pipe', 'inherit'],
    env: { ...process.env, MPLBACKEND: 'Agg' },
  });
  const lines = createInterface({ input: child.stdout });
  const iterator = lines[Symbol.asyncIterator]();
  const next = async () => {
    const line = await iterator.next();
    if (line.done) throw new Error('the baseline script ended early');
    return Number(line.value);
  };
  return {
    cold: next(),
    round: () => {
      child.stdin.write('go\n');
      return next();
    },
    end: () => {
      child.stdin.end();
      lines.close();
    },
  };
}

/** Milliseconds from the request to the last of the cell's figure displays. */
async function timeCell(kernel: Kernel, code: string): Promise<number> {
  let shown = 0;
  let last = 0;
  const start = performance.now();
  await kernel.execute(code, {
    onFrame: (f) => {
      if (f.type === 'display' && typeof f.bundle['image/png'] === 'string') {
        shown++;
        last = performance.now();
      }
    },
  });
  if (shown !== FIGURES) throw new Error(`the cell displayed ${shown} figures, not ${FIGURES}`);
  return last - start;
}

export async function displayBench(): Promise<BenchRow[]> {
  const python = await resolvePython({ interpreter: PYTHON, cwd: process.cwd() }).catch(() => undefined);
  if (!python) {
    process.stderr.write(`(display benchmark skipped: no ${PYTHON})\n`);
    return [];
  }
  const dir = mkdtempSync(join(tmpdir(), 'omp-bench-display-'));
  try {
    const script = join(dir, 'figures.py');
    writeFileSync(script, SCRIPT);
    // Runs alternate between the script and the kernel, so both see the same machine.
    const coldScript: number[] = [];
    const cold: number[] = [];
    for (let i = 0; i < 5; i++) {
      const baseline = startScript(script, dir);
      coldScript.push(await baseline.cold);
      baseline.end();
      const k = await Kernel.start({ resolved: python });
      cold.push(await timeCell(k, `import matplotlib.pyplot as plt\n${WORK}`));
      await k.shutdown();
    }
    const baseline = startScript(script, dir);
    await baseline.cold;
    const k = await Kernel.start({ resolved: python });
    await timeCell(k, `import matplotlib.pyplot as plt\n${WORK}`);
    const warmScript: number[] = [];
    const warm: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      warmScript.push(await baseline.round());
      warm.push(await timeCell(k, WORK));
    }
    baseline.end();
    await k.shutdown();
    const row = (what: string, omp: number, base: number, target: string): BenchRow => ({
      what,
      omp: ms(omp),
      baseline: `${ms(base)} (python3 script saving PNGs)`,
      ratio: `${(omp / base).toFixed(2)}×`,
      target,
    });
    return [
      row(`${FIGURES} matplotlib figures → last display`, median(warm), median(warmScript), '≤ 1.2×'),
      row(`${FIGURES} figures, import included (cold)`, median(cold), median(coldScript), '≤ 1.2×'),
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
