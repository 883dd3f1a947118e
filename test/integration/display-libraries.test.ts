/**
 * Rich output from real libraries: Debian's /usr/bin/python3 with matplotlib, PIL, pandas and numpy
 * (installed by .ci/run). Plotly is not packaged there: a stand-in package with plotly's shape
 * (a Figure whose own reprs are megabytes) is written to a temp dir.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { Kernel, OutputEvent } from '../../src/eval/index.js';
import type { Frame, MimeBundle } from '../../src/eval/protocol/index.js';
import { renderMarkdown } from '../../src/tui/markdown/markdown.js';
import { makeExecutor } from '../helpers/executor.js';
import { run, startKernel } from '../helpers/kernel.js';

const DEBIAN_PYTHON = '/usr/bin/python3';

/** Decodes a PNG for real (inflates its IDAT stream) and returns its size, checked against the data. */
function decodePng(base64: string): { width: number; height: number } {
  const png = Buffer.from(base64, 'base64');
  expect(png.subarray(0, 8).toString('latin1')).toBe('\x89PNG\r\n\x1a\n');
  let offset = 8;
  let width = 0;
  let height = 0;
  let channels = 0;
  let depth = 8;
  const idat: Buffer[] = [];
  while (offset < png.length) {
    const length = png.readUInt32BE(offset);
    const type = png.toString('latin1', offset + 4, offset + 8);
    const data = png.subarray(offset + 8, offset + 8 + length);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      depth = data[8] as number;
      channels = ({ 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 } as Record<number, number>)[data[9] as number] ?? 0;
    }
    if (type === 'IDAT') idat.push(data);
    if (type === 'IEND') break;
    offset += 12 + length;
  }
  const pixels = inflateSync(Buffer.concat(idat));
  // One filter byte per row, then the row's pixels.
  expect(pixels.length).toBe(height * (1 + Math.ceil((width * channels * depth) / 8)));
  return { width, height };
}

const displays = (frames: Frame[]) =>
  frames.filter(
    (f): f is Extract<Frame, { type: 'display' | 'result' }> => f.type === 'display' || f.type === 'result',
  );
const pngs = (frames: Frame[]) => displays(frames).filter((f) => typeof f.bundle['image/png'] === 'string');
const png = (bundle: MimeBundle) => decodePng(bundle['image/png'] as string);

/** A kernel of Debian's Python with pyplot imported (kernels are shut down after each test). */
async function pyplotKernel(): Promise<Kernel> {
  const k = await startKernel({ python: DEBIAN_PYTHON });
  const setup = await run(k, 'import matplotlib.pyplot as plt\nplt.get_backend()');
  expect(setup.result?.['text/plain']).toBe("'agg'");
  return k;
}

describe('matplotlib', () => {
  it('is not imported by the runner: only cells that use it pay for it', async () => {
    const k = await startKernel({ python: DEBIAN_PYTHON });
    const { result } = await run(
      k,
      'import sys\n[m for m in ("matplotlib", "numpy", "PIL", "pandas") if m in sys.modules]',
    );
    expect(result?.['text/plain']).toBe('[]');
    const show = await run(
      k,
      'import matplotlib.pyplot as plt\nplt.show._omp_show, plt.show.__wrapped__.__module__',
    );
    expect(show.result?.['text/plain']).toBe("(True, 'matplotlib.pyplot')");
  });

  it('a plot emits one PNG whose decoded size is the figure size, and the figure is closed', async () => {
    const k = await pyplotKernel();
    const { frames, outcome, stderr } = await run(
      k,
      'fig = plt.figure(figsize=(4, 3), dpi=50)\n_ = plt.plot([1, 3, 2])',
    );
    expect(outcome.status).toBe('ok');
    expect(stderr).toBe('');
    const shown = pngs(frames);
    expect(shown).toHaveLength(1);
    expect(shown[0]?.type).toBe('display');
    expect(png(shown[0]?.bundle as MimeBundle)).toEqual({ width: 200, height: 150 });
    expect(shown[0]?.bundle['text/plain']).toBe('<Figure size 200x150 with 1 Axes>');
    expect((await run(k, 'plt.get_fignums()')).result?.['text/plain']).toBe('[]');
  });

  it('two figures emit two PNGs, in the order they were made', async () => {
    const k = await pyplotKernel();
    const { frames } = await run(
      k,
      'plt.figure(figsize=(2, 2), dpi=50); plt.plot([1])\nplt.figure(figsize=(3, 1), dpi=50); plt.bar([1], [2]);',
    );
    expect(pngs(frames).map((f) => png(f.bundle))).toEqual([
      { width: 100, height: 100 },
      { width: 150, height: 50 },
    ]);
  });

  it('a figure that is the last expression appears once, as the result', async () => {
    const k = await pyplotKernel();
    const { frames } = await run(k, 'fig, ax = plt.subplots(figsize=(2, 2), dpi=40)\nax.plot([1, 2])\nfig');
    const shown = pngs(frames);
    expect(shown.map((f) => f.type)).toEqual(['result']);
    expect(png(shown[0]?.bundle as MimeBundle)).toEqual({ width: 80, height: 80 });
    // display(fig) in the cell counts as shown too.
    const again = await run(
      k,
      'fig2 = plt.figure(figsize=(1, 1), dpi=30); plt.plot([1])\ndisplay(fig2)\nprint("x")',
    );
    expect(pngs(again.frames).map((f) => f.type)).toEqual(['display']);
    // A figure object that pyplot does not manage is drawn too.
    const free = await run(
      k,
      'from matplotlib.figure import Figure\nf = Figure(figsize=(1, 2), dpi=20)\nf.add_subplot().plot([1])\nf',
    );
    expect(png(free.result as MimeBundle)).toEqual({ width: 20, height: 40 });
  });

  it('plt.show() emits the figures where it is called; later figures come at the end', async () => {
    const k = await pyplotKernel();
    const { frames, stderr } = await run(
      k,
      [
        'print("before")',
        'plt.figure(figsize=(1, 1), dpi=30); plt.plot([1])',
        'plt.show()',
        'print("after")',
        'plt.figure(figsize=(2, 1), dpi=30); plt.plot([2])',
        'print("end")',
      ].join('\n'),
    );
    expect(stderr).toBe(''); // no "FigureCanvasAgg is non-interactive" warning
    const order: (string | number)[] = [];
    for (const f of frames) {
      if (f.type === 'started' || f.type === 'done') continue;
      const item = f.type === 'stdout' ? f.data : f.type === 'display' ? png(f.bundle).width : f.type;
      // Output may arrive in one frame or several, depending on timing: join neighbouring text.
      const last = order.at(-1);
      if (typeof item === 'string' && typeof last === 'string' && f.type === 'stdout')
        order[order.length - 1] = last + item;
      else order.push(item);
    }
    expect(order).toEqual(['before\n', 30, 'after\nend\n', 60]);
  });

  it('shows the figures of a cell that failed, before its error; an empty figure is text only', async () => {
    const k = await pyplotKernel();
    const { frames, outcome } = await run(k, 'plt.plot([1, 2])\nplt.figure()\n1 / 0');
    expect(outcome.error?.ename).toBe('ZeroDivisionError');
    const kinds = frames.map((f) => f.type).filter((t) => t === 'display' || t === 'error');
    expect(kinds).toEqual(['display', 'display', 'error']);
    const [plot, empty] = displays(frames);
    expect(plot?.bundle['image/png']).toEqual(expect.any(String));
    expect(empty?.bundle).toEqual({ 'text/plain': '<Figure size 640x480 with 0 Axes>' });
  });

  it('reaches the executor as image events with their pixel size', async () => {
    const ex = makeExecutor({ settings: { 'python.interpreter': DEBIAN_PYTHON } });
    const events: OutputEvent[] = [];
    const [r] = await ex.runOnce(
      [{ code: 'import matplotlib.pyplot as plt\nplt.figure(figsize=(3, 2), dpi=40)\nplt.plot([1, 2]);' }],
      { onEvent: (_, e) => void events.push(e) },
    );
    expect(r?.status).toBe('ok');
    expect(r?.images).toEqual([expect.objectContaining({ mime: 'image/png', width: 120, height: 80 })]);
    const display = events.find((e) => e.kind === 'display');
    expect(display).toMatchObject({
      images: [{ width: 120, height: 80 }],
      mimeTypes: ['image/png', 'text/plain'],
    });
  });
});

describe('PIL, pandas and plotly', () => {
  it('a PIL image is a PNG of its size, as display() and as a result', async () => {
    const k = await startKernel({ python: DEBIAN_PYTHON });
    const { frames, result } = await run(
      k,
      'from PIL import Image\nimg = Image.new("RGB", (4, 3), "red")\ndisplay(img)\nimg.convert("L")',
    );
    const [shown] = displays(frames);
    expect(png(shown?.bundle as MimeBundle)).toEqual({ width: 4, height: 3 });
    expect(png(result as MimeBundle)).toEqual({ width: 4, height: 3 });
    expect(String(result?.['text/plain'])).toMatch(/^<PIL\.Image\.Image image mode=L size=4x3/);
  });

  it('a DataFrame renders as a table (its HTML as markdown), not as its repr', async () => {
    const ex = makeExecutor({ settings: { 'python.interpreter': DEBIAN_PYTHON } });
    const events: OutputEvent[] = [];
    const [r] = await ex.runOnce(
      [
        {
          code: 'import pandas as pd\ndf = pd.DataFrame({"name": ["ann", "bob"], "score": [1.5, 22.0]})\ndf',
        },
        { code: 'df["score"]' },
      ],
      { onEvent: (_, e) => void events.push(e) },
    );
    const result = events.find((e) => e.kind === 'result');
    if (result?.kind !== 'result') throw new Error('no result event');
    expect(result.mimeTypes).toEqual(['text/html', 'text/plain']);
    expect(result.markdown).toBe(
      ['|  | name | score |', '| ---: | --- | ---: |', '| 0 | ann | 1.5 |', '| 1 | bob | 22.0 |'].join('\n'),
    );
    expect(r?.text).toBe(`${result.markdown}\n`);
    const table = renderMarkdown(result.markdown as string, 60, { color: false });
    expect(table.split('\n')).toEqual([
      '┌───┬──────┬───────┐',
      '│   │ name │ score │',
      '├───┼──────┼───────┤',
      '│ 0 │ ann  │   1.5 │',
      '│ 1 │ bob  │  22.0 │',
      '└───┴──────┴───────┘',
    ]);
    // A Series offers no HTML: its own text.
    const series = events.filter((e) => e.kind === 'result')[1];
    expect(series).toMatchObject({ text: expect.stringContaining('Name: score, dtype: float64') });
    expect(series).not.toHaveProperty('markdown');
  });

  it('a plotly figure is a short summary, and a static PNG when kaleido is present', async () => {
    const k = await startKernel({ python: DEBIAN_PYTHON });
    const dir = mkdtempSync(join(tmpdir(), 'omp-plotly-'));
    mkdirSync(join(dir, 'plotly', 'graph_objs'), { recursive: true });
    writeFileSync(join(dir, 'plotly', '__init__.py'), '');
    writeFileSync(
      join(dir, 'plotly', 'graph_objs', '__init__.py'),
      [
        'class _Trace:',
        '    def __init__(self, type, name, x):',
        '        self.type, self.name, self.x = type, name, x',
        'class _Title:',
        '    text = "Sales"',
        'class _Layout:',
        '    title = _Title()',
        'class Figure:',
        '    def __init__(self):',
        '        self.data = (_Trace("scatter", "a", [1, 2, 3]), _Trace("bar", None, [1, 2]))',
        '        self.layout = _Layout()',
        '    def _repr_html_(self):',
        '        return "<div>" + "x" * 5_000_000 + "</div>"',
        '    def _repr_mimebundle_(self, include=None, exclude=None):',
        '        return {"text/html": self._repr_html_(), "application/vnd.plotly.v1+json": {"data": [0] * 10**6}}',
        '    def to_image(self, format="png"):',
        '        import io',
        '        from PIL import Image',
        '        buf = io.BytesIO()',
        '        Image.new("RGB", (7, 5)).save(buf, format=format)',
        '        return buf.getvalue()',
      ].join('\n'),
    );
    const summary = `Plotly figure: 2 traces: scatter 'a' (3 points), bar (2 points); title 'Sales'`;
    const plain = await run(
      k,
      `import sys\nsys.path.insert(0, ${JSON.stringify(dir)})\nimport plotly.graph_objs as go\ngo.Figure()`,
    );
    expect(plain.result).toEqual({ 'text/plain': `${summary} (install kaleido for a static image)` });
    mkdirSync(join(dir, 'kaleido'));
    writeFileSync(join(dir, 'kaleido', '__init__.py'), '');
    const { result } = await run(k, 'import importlib\nimportlib.invalidate_caches()\ngo.Figure()');
    expect(result?.['text/plain']).toBe(summary);
    expect(png(result as MimeBundle)).toEqual({ width: 7, height: 5 });
  });
});
