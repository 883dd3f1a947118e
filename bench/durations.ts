/**
 * Durations that tests used to assert (tests now wait for conditions only): how long the host
 * takes to drop or cut huge outputs, how long its event loop stalls meanwhile, and how long the
 * kernel's own limits (interrupt escalation, completion deadline, noticing a death) take.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createExecutor, Kernel, type ResolvedPython } from '../src/eval/index.js';
import { htmlToMarkdown, renderBundle } from '../src/eval/output/display.js';
import { MARKDOWN_LIMIT, renderMarkdown } from '../src/tui/markdown/markdown.js';
import { type BenchRow, ms, timeIt } from './lib.js';

const row = (what: string, took: number, target: number, note = ''): BenchRow => ({
  what,
  omp: ms(took),
  baseline: note || '-',
  ratio: '-',
  target: `< ${ms(target)}${took < target ? '' : ' MISSED'}`,
});

function hostWork(): BenchRow[] {
  const png = 'iVBORw0KGgoAAAANSUhEUgAAAAIAAAADCAYAAAC56t6BAAAAEklEQVR4nGNgYGD4z8DAwMAAAAUAAQ==';
  const huge = png.slice(0, 32) + 'A'.repeat(Math.ceil((50e6 * 4) / 3) - 32);
  const rows = Array.from({ length: 200_000 }, (_, i) => `<tr><td>${i}</td><td>${'y'.repeat(30)}</td></tr>`);
  const html = `<table><thead><tr><th>n</th><th>s</th></tr></thead><tbody>${rows.join('\n')}</tbody></table>`;
  const line = '- an item of a very long list\n';
  const md = line.repeat(Math.ceil((MARKDOWN_LIMIT * 3) / line.length));
  htmlToMarkdown('<p>warm</p>');
  renderMarkdown('warm', 80, { color: false });
  const time = (fn: () => unknown) => {
    const t = performance.now();
    fn();
    return performance.now() - t;
  };
  return [
    row(
      'a 50 MB image bundle left out',
      time(() => renderBundle({ 'image/png': huge, 'text/plain': '<img>' })),
      200,
    ),
    row(
      'a 10 MB HTML table cut to markdown',
      time(() => htmlToMarkdown(html)),
      500,
    ),
    row(
      'markdown of 3× the render limit',
      time(() => renderMarkdown(md, 80, { color: false })),
      1000,
    ),
  ];
}

/** The longest stall of the host's event loop while a kernel sends a 10 MB HTML table. */
async function htmlStall(python: ResolvedPython): Promise<BenchRow> {
  const ex = createExecutor({ settings: { 'python.interpreter': python.executable } });
  const s = await ex.session({ cwd: process.cwd() });
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  await s.run([
    {
      language: 'py',
      code: [
        'class Table:',
        '    def _repr_html_(self):',
        '        rows = "".join("<tr><td>%d</td><td>%s</td></tr>" % (i, "x" * 30) for i in range(200_000))',
        '        return "<table><thead><tr><th>n</th><th>text</th></tr></thead>" + rows + "</table>"',
        'Table()',
      ].join('\n'),
    },
  ]);
  delay.disable();
  await ex.dispose();
  return row('host event loop stall, 10 MB HTML result', delay.max / 1e6, 800);
}

async function kernelLimits(python: ResolvedPython): Promise<BenchRow[]> {
  const k = await Kernel.start({ resolved: python });
  await k.execute('import time\nclass Hang:\n    def __dir__(self):\n        time.sleep(1000)\nh = Hang()');
  const completion = await timeIt(1, async () => {
    await k.complete('h.x', 3);
  });
  let ready = false;
  const cell = k.execute(
    'import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nprint("ready")\nwhile True:\n    pass',
    {
      onFrame: (f) => {
        if (f.type === 'stdout') ready = true;
      },
    },
  );
  while (!ready) await new Promise((r) => setTimeout(r, 2));
  const t = performance.now();
  k.interrupt();
  await cell;
  const escalation = performance.now() - t;
  const forked = await Kernel.start({ resolved: python, shutdownGraceMs: 200 });
  const death = await timeIt(1, async () => {
    await forked.execute(
      'import os, time\nif os.fork() == 0:\n    time.sleep(8)\n    os._exit(0)\nos._exit(3)',
    );
  });
  return [
    row('completion held by user code → no completions', completion, 2000 + 1500, 'the 2 s deadline'),
    row('interrupt ignored → kernel killed', escalation, 5000 + 2 * 1000 + 1500, 'the 5 s escalation'),
    row('kernel death noticed, a fork holding its pipes', death, 3000),
  ];
}

export async function durationBench(python: ResolvedPython): Promise<BenchRow[]> {
  return [...hostWork(), await htmlStall(python), ...(await kernelLimits(python))];
}
