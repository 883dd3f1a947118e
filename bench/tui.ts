/**
 * The notebook's responsiveness in a real pseudo-terminal: keystroke to screen update with 1,000
 * finished cells above the prompt, and while a cell streams 200,000 lines; bytes written to the
 * terminal per second and the notebook process's own CPU while streaming.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pty from '@lydell/node-pty';
import xterm from '@xterm/headless';
import { median } from './lib.js';

const BIN = fileURLToPath(new URL('../../bin/omp-eval.js', import.meta.url));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** utime + stime of a process, in seconds (Linux). */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

async function main() {
  const columns = 100;
  const rows = 30;
  const term = new xterm.Terminal({ cols: columns, rows, allowProposedApi: true, convertEol: true });
  const child = pty.spawn(process.execPath, [BIN], {
    name: 'xterm-256color',
    cols: columns,
    rows,
    env: {
      ...process.env,
      CI: 'false',
      FORCE_COLOR: '1',
      OMP_EVAL_HISTORY: join(mkdtempSync(join(tmpdir(), 'omp-bench-')), 'history.json'),
    } as Record<string, string>,
  });
  let bytes = 0;
  let pendingWrite = Promise.resolve();
  child.onData((data) => {
    bytes += Buffer.byteLength(data);
    pendingWrite = pendingWrite.then(() => new Promise<void>((resolve) => term.write(data, resolve)));
  });
  const screen = () => {
    const buffer = term.buffer.active;
    const lines: string[] = [];
    for (let i = 0; i < rows; i++)
      lines.push(buffer.getLine(buffer.viewportY + i)?.translateToString(true) ?? '');
    return lines.join('\n');
  };
  const waitFor = async (predicate: (s: string) => boolean, timeoutMs = 120_000) => {
    const until = Date.now() + timeoutMs;
    while (!predicate(screen())) {
      if (Date.now() > until) throw new Error(`bench: timed out; screen:\n${screen()}`);
      await sleep(5);
    }
  };
  /** Types one character and measures until the prompt line shows it. */
  const promptLine = (s: string) => s.split('\n').find((line) => /^In \[\d+\]:/.test(line)) ?? '';
  const keystroke = async (char: string) => {
    const started = performance.now();
    child.write(char);
    await waitFor((s) => promptLine(s).includes(char));
    const ms = performance.now() - started;
    child.write('\x7f');
    await waitFor((s) => !promptLine(s).includes(char));
    return ms;
  };

  await waitFor((s) => s.includes('● idle'));
  const cells = Array.from({ length: 1000 }, (_, i) => `# %%\nv${i} = ${i}`).join('\n');
  child.write(`\x1b[200~${cells}\x1b[201~`);
  await sleep(300);
  child.write('\r');
  await waitFor((s) => s.includes('In [1001]:'));
  const idle: number[] = [];
  for (let i = 0; i < 30; i++) idle.push(await keystroke('q'));

  // 200,000 lines over a few seconds (a short pause every 2,000 lines), so keys can be timed meanwhile.
  child.write(
    'import time\nfor i in range(200_000):\n    print("line", i, "x" * 40)\n    if i % 2000 == 0: time.sleep(0.02)\n',
  );
  await sleep(100);
  child.write('\r');
  await waitFor((s) => s.includes('running'));
  const bytesBefore = bytes;
  const cpuBefore = cpuSeconds(child.pid);
  const t0 = performance.now();
  const streaming: number[] = [];
  for (let i = 0; i < 40 && screen().includes('running'); i++) streaming.push(await keystroke('z'));
  await waitFor((s) => s.includes('In [1002]:'));
  const seconds = (performance.now() - t0) / 1000;
  const cpu = cpuSeconds(child.pid) - cpuBefore;
  const written = bytes - bytesBefore;
  child.write('\x04');
  await sleep(300);
  child.kill();

  const table = [
    ['benchmark', 'omp-eval', 'target'],
    [
      'keystroke → screen, 1,000 finished cells',
      `${median(idle).toFixed(1)} ms (median of ${idle.length})`,
      '< 50 ms',
    ],
    [
      'keystroke → screen while 200k lines stream',
      streaming.length
        ? `${median(streaming).toFixed(1)} ms (median of ${streaming.length})`
        : 'n/a (stream ended first)',
      '< 50 ms',
    ],
    [
      'bytes to the terminal while streaming',
      `${Math.round(written / seconds / 1024)} KiB/s (${(written / 2 ** 20).toFixed(1)} MiB in ${seconds.toFixed(1)} s)`,
      'report',
    ],
    ['notebook CPU while streaming', `${Math.round((cpu / seconds) * 100)} % of a core`, 'report'],
  ];
  const widths = table[0]?.map((_, c) => Math.max(...table.map((r) => (r[c] as string).length))) ?? [];
  const line = (r: string[]) => `| ${r.map((cell, c) => cell.padEnd(widths[c] as number)).join(' | ')} |`;
  process.stdout.write(
    `${[line(table[0] as string[]), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...table.slice(1).map(line)].join('\n')}\n`,
  );
}

await main();
