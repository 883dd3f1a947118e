/**
 * Following an agent (issue 41): what `omp-eval attach` costs the agent and what the person waits
 * for. A real `omp-eval mcp` over stdio driven by the SDK's client, `omp-eval attach` and the local
 * notebook each in a real pseudo-terminal, timed from outside:
 * - `1+1` round trips, blocks with and without the notebook attached, alternated (≤ 1.2×);
 * - a 200,000-line cell, from the agent's call to the attached notebook's `✓ … agent #k … ok` row,
 *   against the same cell typed in a local notebook, from Enter to its `✓ [n] ok` row (≤ 1.5×);
 * - the RSS of the attached notebook's process tree after that cell and after OMP_BENCH_CELLS
 *   calls, against the local notebook's (its kernel included) after the same.
 *
 * Runs alone: `node dist/bench/attach.js` after `npm run build`. OMP_BENCH_ROUNDS (alternated
 * blocks of 1+1, 5), OMP_BENCH_CALLS (calls per block, 100), OMP_BENCH_FLOODS (200,000-line rounds,
 * 3), OMP_BENCH_CELLS (calls and cells before the second memory figure, 1000).
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  type BenchRow,
  cpuSeconds,
  envInt,
  idleRss,
  median,
  ms,
  printTable,
  scratchDir,
  treeRssMiB,
} from './lib.js';
import { inPty, notebook } from './tuiInput.js';

const BIN = fileURLToPath(new URL('../../bin/omp-eval.js', import.meta.url));
const ROUNDS = envInt('OMP_BENCH_ROUNDS', 5);
const CALLS = envInt('OMP_BENCH_CALLS', 100);
const FLOODS = envInt('OMP_BENCH_FLOODS', 3);
const CELLS = envInt('OMP_BENCH_CELLS', 1000);
const FLOOD = 'for i in range(200000): print(i)';
/** Rows enough that a finished cell's header and its preview are on screen together. */
const ROWS = 50;

// Each run on its own: the servers it publishes (XDG_RUNTIME_DIR/omp-eval) and its spill files,
// artifacts and compiled bytecode (TMPDIR), both removed at the end.
process.env.XDG_RUNTIME_DIR = scratchDir('omp-bench-attach-run-');
process.env.TMPDIR = scratchDir('omp-bench-attach-tmp-');

type Terminal = ReturnType<typeof inPty>;
const open = new Set<Terminal>();
const minMed = (xs: number[]) => `${ms(Math.min(...xs))} / ${ms(median(xs))}`;
const mb = (x: number) => `${x.toFixed(0)} MB`;

/** Ctrl-D on the empty prompt, and the terminal's process gone (killed after 5 s). */
async function close(t: Terminal): Promise<void> {
  open.delete(t);
  const exited = new Promise<void>((resolve) => t.child.onExit(() => resolve()));
  t.child.write('\x04');
  const timer = setTimeout(() => t.child.kill(), 5000);
  await exited;
  clearTimeout(timer);
}

const client = new Client({ name: 'omp-bench-attach', version: '1' });
let calls = 0;
async function call(code: string, title?: string): Promise<string> {
  calls++;
  const result = await client.callTool({
    name: 'eval',
    arguments: { cells: [{ language: 'py', code, ...(title ? { title } : {}) }] },
  });
  return (result.content as { text?: string }[])[0]?.text ?? '';
}

/** `omp-eval attach` on the session, once it shows the agent's last call and its prompt. */
async function attach(): Promise<Terminal> {
  const t = inPty(process.execPath, [BIN, 'attach'], {}, 100, ROWS);
  open.add(t);
  await t.waitFor((s) => s.includes(`agent #${calls}`) && /In \[\d+\]:/.test(s));
  await t.settle();
  return t;
}

/** `CALLS` round trips of `1+1`, each in ms. */
async function block(): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    const t = performance.now();
    if ((await call('1+1')) !== '2') throw new Error('bench: 1+1 is not 2');
    times.push(performance.now() - t);
  }
  return times;
}

/**
 * The blocks of `1+1`, alternated, and the CPU seconds per call of the server (with and without a
 * follower) and of the attached notebook: where the time goes when the cores are shared.
 */
async function roundTrips(server: number) {
  const alone: number[] = [];
  const attached: number[] = [];
  const cpu = { alone: 0, attached: 0, notebook: 0 };
  await block(); // warm: the kernel and the server's code
  for (let r = 0; r < ROUNDS; r++) {
    // (alternated: which comes first changes each round)
    for (const withNotebook of r % 2 ? [true, false] : [false, true]) {
      const before = cpuSeconds(server);
      if (!withNotebook) {
        alone.push(...(await block()));
        cpu.alone += cpuSeconds(server) - before;
        continue;
      }
      const t = await attach();
      const notebookBefore = cpuSeconds(t.child.pid);
      // (its output parsed after the block, as a terminal of its own would: not on this loop)
      t.hold();
      attached.push(...(await block()));
      cpu.attached += cpuSeconds(server) - before;
      t.release();
      await t.waitFor((s) => s.includes(`agent #${calls}`)); // (all shown before it leaves)
      cpu.notebook += cpuSeconds(t.child.pid) - notebookBefore;
      await close(t);
    }
  }
  const perCall = (s: number) => ms((s * 1000) / (ROUNDS * CALLS));
  return {
    alone,
    attached,
    cpu: { alone: perCall(cpu.alone), attached: perCall(cpu.attached), notebook: perCall(cpu.notebook) },
  };
}

/** The 200,000-line cell, alternated between the attached notebook and a local one; then memory. */
async function floods() {
  const followed = await attach();
  const local = notebook({}, 100, ROWS);
  open.add(local);
  await local.waitFor((s) => /In \[1\]:/.test(s) && s.includes('● idle'));
  await local.settle();
  let cell = 0;
  const attachedMs: number[] = [];
  const agentMs: number[] = [];
  const localMs: number[] = [];
  const inAttached = async (title: string) => {
    const t = performance.now();
    const result = call(FLOOD, title).then(() => agentMs.push(performance.now() - t));
    await followed.waitFor((s) => new RegExp(`✓ \\[\\d+\\] agent #\\d+ ${title} ok`).test(s));
    attachedMs.push(performance.now() - t);
    await result;
    await followed.settle();
  };
  const inLocal = async () => {
    cell++;
    local.child.write(FLOOD);
    await local.waitFor((s) => s.includes(FLOOD));
    const t = performance.now();
    local.child.write('\r');
    await local.waitFor((s) => s.includes(`✓ [${cell}] ok`));
    localMs.push(performance.now() - t);
    await local.waitFor((s) => s.includes(`In [${cell + 1}]:`));
    await local.settle();
  };
  for (let r = 0; r < FLOODS; r++) {
    if (r % 2) await inLocal();
    await inAttached(`flood-${r}`);
    if (!(r % 2)) await inLocal();
  }
  const [rssFollowedFlood, rssLocalFlood] = await Promise.all([
    idleRss(followed.child.pid, treeRssMiB),
    idleRss(local.child.pid, treeRssMiB),
  ]);

  // OMP_BENCH_CELLS calls of a line each, and as many cells typed (pasted) in the local notebook.
  for (let i = 0; i < CELLS; i++) await call(`print(${i})`, i === CELLS - 1 ? 'last' : undefined);
  await followed.waitFor((s) => /✓ \[\d+\] agent #\d+ last ok/.test(s));
  await followed.settle();
  const cells = Array.from({ length: CELLS }, (_, i) => `# %%\nprint(${i})`).join('\n');
  local.child.write(`\x1b[200~${cells}\x1b[201~`);
  await local.waitFor((s) => s.includes(`print(${CELLS - 1})`));
  local.child.write('\r');
  cell += CELLS;
  await local.waitFor((s) => s.includes(`In [${cell + 1}]:`));
  await local.settle();
  const [rssFollowedCells, rssLocalCells] = await Promise.all([
    idleRss(followed.child.pid, treeRssMiB),
    idleRss(local.child.pid, treeRssMiB),
  ]);
  await Promise.all([close(followed), close(local)]);
  return {
    attachedMs,
    agentMs,
    localMs,
    rssFollowedFlood,
    rssLocalFlood,
    rssFollowedCells,
    rssLocalCells,
  };
}

async function main(): Promise<void> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp'],
    env: process.env as Record<string, string>,
    stderr: 'inherit',
  });
  await client.connect(transport);
  try {
    if ((await call('1+1')) !== '2') throw new Error('bench: 1+1 is not 2');
    // The session is published once the server has it; wait until `attach --list` shows it.
    for (const until = Date.now() + 30_000; ; ) {
      const list = spawnSync(process.execPath, [BIN, 'attach', '--list'], { encoding: 'utf8' });
      if (list.stdout.includes('omp-bench-attach')) break;
      if (Date.now() > until) throw new Error(`bench: no session listed: ${list.stdout}${list.stderr}`);
    }
    const trips = await roundTrips(transport.pid as number);
    const f = await floods();
    const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`;
    const rows: BenchRow[] = [
      {
        what: `eval 1+1 over stdio, attached vs not (${ROUNDS}×${CALLS} calls each, alternated blocks; min / median)`,
        omp: minMed(trips.attached),
        baseline: minMed(trips.alone),
        ratio: ratio(median(trips.attached), median(trips.alone)),
        target: '≤ 1.2×',
      },
      {
        what: '↳ CPU per call: server with a follower, and the attached notebook vs server alone',
        omp: `${trips.cpu.attached}, notebook ${trips.cpu.notebook}`,
        baseline: trips.cpu.alone,
        ratio: '-',
        target: '-',
      },
      {
        what: `200,000-line cell: agent's call → attached notebook shows it done vs local Enter → done (${FLOODS} rounds; min / median)`,
        omp: minMed(f.attachedMs),
        baseline: minMed(f.localMs),
        ratio: ratio(median(f.attachedMs), median(f.localMs)),
        target: '≤ 1.5×',
      },
      {
        what: "↳ the same call: agent's result (min / median)",
        omp: minMed(f.agentMs),
        baseline: '-',
        ratio: '-',
        target: '-',
      },
      {
        what: 'RSS, attached notebook tree vs local notebook tree (its kernel too), after that cell',
        omp: mb(f.rssFollowedFlood),
        baseline: mb(f.rssLocalFlood),
        ratio: ratio(f.rssFollowedFlood, f.rssLocalFlood),
        target: 'bounded (≤ 1×)',
      },
      {
        what: `RSS, the same, after ${CELLS} more calls (cells) of a line each`,
        omp: mb(f.rssFollowedCells),
        baseline: mb(f.rssLocalCells),
        ratio: ratio(f.rssFollowedCells, f.rssLocalCells),
        target: 'bounded (≤ 1×)',
      },
    ];
    printTable(rows, 'attach benchmark', 'omp-eval attach');
  } finally {
    for (const t of open) t.child.kill();
    await client.close();
  }
}

await main();
process.exit(0);
