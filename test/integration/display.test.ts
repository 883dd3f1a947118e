import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { OutputEvent } from '../../src/eval/index.js';
import type { Frame } from '../../src/eval/protocol/index.js';
import { makeExecutor } from '../helpers/executor.js';
import { run, startKernel } from '../helpers/kernel.js';

const PNG_2x3 =
  'iVBORw0KGgoAAAANSUhEUgAAAAIAAAADCAYAAAC56t6BAAAAEElEQVR4nGNgYGD4z4AKAAH+AQHx3/eRAAAAAElFTkSuQmCC';
// SOI and a baseline SOF0 header: 3 rows of 2 pixels.
const JPEG_2x3 = Buffer.from('ffd8ffc0001108000300020301220002110103110100ffd9', 'hex').toString('base64');

const EVERYTHING = [
  'import base64',
  'class Everything:',
  '    def __repr__(self): return "Everything()"',
  '    def _repr_html_(self): return "<p><b>html</b></p>"',
  '    def _repr_markdown_(self): return "**markdown**"',
  '    def _repr_svg_(self): return b\'<svg xmlns="http://www.w3.org/2000/svg" width="10" height="20"/>\'',
  `    def _repr_png_(self): return base64.b64decode("${PNG_2x3}")`,
  `    def _repr_jpeg_(self): return base64.b64decode("${JPEG_2x3}"), {"width": 2}`,
  '    def _repr_json_(self): return {"k": [1, 2]}',
  '    def _repr_latex_(self): return r"$x^2$"',
  '    def _repr_mimebundle_(self, include=None, exclude=None):',
  '        return {"application/vnd.custom+json": {"a": 1}}',
].join('\n');

const displayFrames = (frames: Frame[]) =>
  frames.filter((f): f is Extract<Frame, { bundle: unknown }> => f.type === 'display');

function executor() {
  return makeExecutor({ settings: { 'python.interpreter': 'python3' } });
}

async function eventsOf(code: string) {
  const events: OutputEvent[] = [];
  const [r] = await executor().runOnce([{ code }], { onEvent: (_, e) => void events.push(e) });
  if (!r) throw new Error('no result');
  return { r, events, shown: events.filter((e) => e.kind === 'display' || e.kind === 'result') };
}

describe('display(): MIME bundles from repr methods', () => {
  it('builds a bundle from every _repr_*_ method and _repr_mimebundle_, binary images as base64', async () => {
    const k = await startKernel();
    const { result, stderr } = await run(k, `${EVERYTHING}\nEverything()`);
    expect(stderr).toBe('');
    expect(result).toEqual({
      'application/vnd.custom+json': { a: 1 },
      'text/html': '<p><b>html</b></p>',
      'text/markdown': '**markdown**',
      'image/svg+xml': '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="20"/>',
      'image/png': PNG_2x3,
      'image/jpeg': JPEG_2x3,
      'application/json': { k: [1, 2] },
      'text/latex': '$x^2$',
      'text/plain': 'Everything()',
    });
  });

  it('include and exclude pick MIME types, text/plain included', async () => {
    const k = await startKernel();
    const { frames } = await run(
      k,
      `${EVERYTHING}\ndisplay(Everything(), include=["image/png", "text/latex"])\ndisplay(Everything(), exclude=["text/markdown", "text/html", "image/svg+xml", "image/png", "image/jpeg", "application/vnd.custom+json"])`,
    );
    const [picked, rest] = displayFrames(frames);
    expect(picked?.bundle).toEqual({ 'image/png': PNG_2x3, 'text/latex': '$x^2$' });
    expect(Object.keys(rest?.bundle ?? {}).sort()).toEqual(['application/json', 'text/latex', 'text/plain']);
  });

  it('renders each MIME type: markdown first, one image (PNG before JPEG), JSON as data', async () => {
    const { r, shown } = await eventsOf(
      [
        EVERYTHING,
        'display(Everything())',
        'display(Everything(), exclude=["text/markdown", "image/png"])',
        'display({"image/svg+xml": Everything()._repr_svg_()}, raw=True)',
        'display({"text/latex": "$y$"}, raw=True)',
        'display({"text/html": "<h2>Title</h2><ul><li>one</li></ul>"}, raw=True)',
      ].join('\n'),
    );
    const [all, noMarkdown, svg, latex, html] = shown;
    expect(all).toMatchObject({ text: '**markdown**', markdown: '**markdown**', json: { k: [1, 2] } });
    expect(all?.kind === 'display' && all.images).toEqual([
      { mime: 'image/png', data: PNG_2x3, width: 2, height: 3 },
    ]);
    // Its text/plain is only repr(): the HTML shows, as markdown.
    expect(noMarkdown).toMatchObject({ text: '**html**', markdown: '**html**' });
    expect(noMarkdown?.kind === 'display' && noMarkdown.images).toEqual([
      { mime: 'image/jpeg', data: JPEG_2x3, width: 2, height: 3 },
    ]);
    expect(svg).toMatchObject({ text: '[SVG image 10×20]', images: [] });
    expect(latex).toMatchObject({ text: '$y$' });
    expect(html).toMatchObject({ markdown: '## Title\n\n-   one' });
    expect(r.images).toHaveLength(2);
    expect(r.json).toEqual([{ k: [1, 2] }, { k: [1, 2] }]);
  });

  it('skips a repr method that raises, showing its traceback as IPython does, and the cell succeeds', async () => {
    const k = await startKernel();
    const { frames, stderr, outcome } = await run(
      k,
      [
        'class Bad:',
        '    def _repr_html_(self): raise ValueError("no html")',
        '    def _repr_markdown_(self): return "*fine*"',
        '    def _repr_mimebundle_(self, include=None, exclude=None): raise KeyError("bundle")',
        '    def __repr__(self): raise RuntimeError("no repr")',
        '    def _repr_latex_(self): raise NotImplementedError',
        'display(Bad())',
        'print("after")',
      ].join('\n'),
    );
    expect(outcome.status).toBe('ok');
    const [shown] = displayFrames(frames);
    // The methods that failed are left out, text/plain too (its repr raised).
    expect(shown?.bundle).toEqual({ 'text/markdown': '*fine*' });
    const tracebacks = stderr.split('Traceback (most recent call last):\n').slice(1);
    expect(tracebacks.map((t) => t.trim().split('\n').at(-1))).toEqual([
      "KeyError: 'bundle'",
      'ValueError: no html',
      'RuntimeError: no repr',
    ]);
    expect(stderr).toContain('in _repr_html_');
    expect(stderr).not.toContain('NotImplementedError');
    expect(frames.at(-2)).toMatchObject({ type: 'stdout', data: 'after\n' });
  });

  it('does not take an object that answers every attribute (a mock) for one with repr methods', async () => {
    const k = await startKernel();
    const { frames, stderr } = await run(
      k,
      'from unittest.mock import MagicMock\ndisplay(MagicMock(name="m"))',
    );
    expect(displayFrames(frames)[0]?.bundle).toEqual({
      'text/plain': expect.stringMatching(/^<MagicMock name='m'/),
    });
    expect(stderr).toBe('');
  });

  it('display() of dicts and lists carries application/json; a result or a non-JSON dict does not', async () => {
    const k = await startKernel();
    const { frames, result, stderr } = await run(
      k,
      'display({"a": [1, 2], "b": None}, [1, "x"])\ndisplay({"s": {1, 2}})\n{"r": 1}',
    );
    const [dict, list, set] = displayFrames(frames);
    expect(dict?.bundle).toEqual({
      'text/plain': "{'a': [1, 2], 'b': None}",
      'application/json': { a: [1, 2], b: null },
    });
    expect(list?.bundle).toEqual({ 'text/plain': "[1, 'x']", 'application/json': [1, 'x'] });
    expect(set?.bundle).toEqual({ 'text/plain': "{'s': {1, 2}}" });
    expect(result).toEqual({ 'text/plain': "{'r': 1}" });
    expect(stderr).toBe('');
    const { r } = await eventsOf('display({"a": [1, 2]})');
    expect(r.json).toEqual([{ a: [1, 2] }]);
    expect(r.text).toBe("{'a': [1, 2]}\n");
  });

  it('marks a text/plain that is only repr(), also through %%capture and show()', async () => {
    const k = await startKernel();
    const cls = 'class T:\n    def _repr_html_(self): return "<i>t</i>"\n';
    const { frames } = await run(
      k,
      `${cls}display(T())\ndisplay({"text/plain": "x", "text/html": "<i>y</i>"}, raw=True)`,
    );
    const [repr, raw] = displayFrames(frames);
    expect(repr).toMatchObject({ plainIsRepr: true });
    expect(raw).not.toHaveProperty('plainIsRepr');
    const captured = await run(k, '%%capture cap\ndisplay(T())');
    expect(displayFrames(captured.frames)).toEqual([]);
    const shown = await run(k, 'cap.show()');
    expect(displayFrames(shown.frames)[0]).toMatchObject({
      plainIsRepr: true,
      bundle: { 'text/html': '<i>t</i>' },
    });
  });
});

describe('status events and display ids', () => {
  it('status bundles become status events and short lines of the text, never their text/plain', async () => {
    const { r, events } = await eventsOf(
      [
        '_emit_status("find", count=3)',
        'display({"application/x-omp-status": {"op": "step", "n": 1}, "text/plain": "hidden"}, raw=True)',
        'print("visible")',
      ].join('\n'),
    );
    expect(events.filter((e) => e.kind === 'status')).toEqual([
      { kind: 'status', event: { op: 'find', count: 3 } },
      { kind: 'status', event: { op: 'step', n: 1 } },
    ]);
    expect(events.some((e) => e.kind === 'display')).toBe(false);
    // (issue 13 item 8: an agent reads the text, so each event is a short line there too)
    expect(r.text).toBe('[find] {"count":3}\n[step] {"n":1}\nvisible\n');
    expect(r.statusEvents).toEqual([
      { op: 'find', count: 3 },
      { op: 'step', n: 1 },
    ]);
  });

  it('display_id and update_display mark the outputs that replace earlier ones', async () => {
    const k = await startKernel();
    const { frames, result } = await run(
      k,
      [
        'h = display("start", display_id=True)',
        'h.update("middle")',
        'display("named", display_id="progress")',
        'update_display("done", display_id="progress")',
        'display("plain")',
        'h',
      ].join('\n'),
    );
    const shown = displayFrames(frames).map((f) => ({
      text: f.bundle['text/plain'],
      id: (f as { displayId?: string }).displayId,
      update: (f as { update?: boolean }).update,
    }));
    const id = shown[0]?.id as string;
    expect(id).toMatch(/^[0-9a-f]{32}$/);
    expect(shown).toEqual([
      { text: "'start'", id, update: undefined },
      { text: "'middle'", id, update: true },
      { text: "'named'", id: 'progress', update: undefined },
      { text: "'done'", id: 'progress', update: true },
      { text: "'plain'", id: undefined, update: undefined },
    ]);
    expect(result?.['text/plain']).toBe(`<DisplayHandle display_id=${id}>`);
    const bad = await run(k, 'update_display("x")');
    expect(bad.outcome.error?.evalue).toBe('update_display() needs a display_id');

    const { shown: events } = await eventsOf('display(1, display_id="p")\nupdate_display(2, display_id="p")');
    expect(events).toMatchObject([
      { kind: 'display', text: '1', displayId: 'p' },
      { kind: 'display', text: '2', displayId: 'p', update: true },
    ]);
    expect(events[0]).not.toHaveProperty('update');
  });
});

describe('huge payloads', () => {
  it('a 50 MB image is dropped by the runner with a notice; the cell and the kernel carry on', async () => {
    const k = await startKernel();
    const { frames, stderr, outcome } = await run(
      k,
      `display({"image/png": "${PNG_2x3.slice(0, 40)}" + "A" * (50 * 10**6 * 4 // 3), "text/plain": "<big image>"}, raw=True)`,
    );
    expect(outcome.status).toBe('ok');
    expect(displayFrames(frames)[0]?.bundle).toEqual({ 'text/plain': '<big image>' });
    expect(stderr).toBe(
      'omp-eval: raw bundle: image/png output of 50.0 MB dropped: images over 12.6 MB are not sent\n',
    );
    expect((await run(k, '1 + 1')).result).toEqual({ 'text/plain': '2' });
  });

  it('a 10 MB HTML table is cut for display with a notice', async () => {
    // (How long the host's event loop stalls meanwhile is measured by `npm run bench`.)
    const { r, shown, events } = await eventsOf(
      [
        'class Table:',
        '    def __repr__(self): return "<Table>"',
        '    def _repr_html_(self):',
        '        rows = "".join("<tr><td>%d</td><td>%s</td></tr>" % (i, "x" * 30) for i in range(200_000))',
        '        return "<table><thead><tr><th>n</th><th>text</th></tr></thead>" + rows + "</table>"',
        'Table()',
      ].join('\n'),
    );
    const [table] = shown;
    const markdown = table?.kind === 'result' ? (table.markdown ?? '') : '';
    expect(markdown.startsWith('| n | text |\n| ---: | --- |\n| 0 | xxx')).toBe(true);
    expect(markdown.length).toBeLessThan(64 * 1024);
    expect(markdown).toMatch(
      /\n\n\[output cut for display: the first \d+ kB of \d+\.\d MB of HTML are shown; 19\d,\d{3} more table rows are not\]$/,
    );
    expect(r.text.length).toBeLessThan(70 * 1024);
    // Nothing is lost: the whole HTML is in a file the result names.
    const notice = r.notices.find((n) => n.startsWith('1 HTML output over 66 kB cut for display'));
    const file = /the whole HTML is in (\S+\.html)$/.exec(notice ?? '')?.[1];
    expect(file, r.notices.join('\n')).toBeDefined();
    const html = readFileSync(file as string, 'utf8');
    expect(html.startsWith('<table><thead>')).toBe(true);
    expect(html.endsWith('</tr></table>')).toBe(true);
    expect(html.split('<tr>').length - 1).toBe(200_001);
    // Front ends (the notebook, run) hear it under the table.
    expect(events.filter((e) => e.kind === 'notice').map((e) => e.kind === 'notice' && e.text)).toContain(
      `HTML over 66 kB cut for display; the whole HTML is in ${file}`,
    );
  });
});

describe('a stdlib-only Python (python3 on PATH, no matplotlib)', () => {
  it('starts, shows plain objects and HTML, and reports a missing matplotlib as an ordinary error', async () => {
    const k = await startKernel({ python: 'python3' });
    const check = await run(k, 'import importlib.util\nimportlib.util.find_spec("matplotlib") is None');
    expect(check.result, 'python3 on PATH should be a Python without matplotlib').toEqual({
      'text/plain': 'True',
    });
    const { frames, outcome } = await run(
      k,
      'class H:\n    def _repr_html_(self): return "<b>h</b>"\ndisplay(1, "two", [3], {"four": 4}, H())',
    );
    expect(outcome.status).toBe('ok');
    expect(displayFrames(frames).map((f) => f.bundle)).toEqual([
      { 'text/plain': '1' },
      { 'text/plain': "'two'" },
      { 'text/plain': '[3]', 'application/json': [3] },
      { 'text/plain': "{'four': 4}", 'application/json': { four: 4 } },
      // IPython's plain text for an object without a repr of its own.
      { 'text/html': '<b>h</b>', 'text/plain': expect.stringMatching(/^<__main__\.H at 0x[0-9a-f]+>$/) },
    ]);
    const missing = await run(k, 'import matplotlib.pyplot as plt');
    expect(missing.outcome.error?.ename).toBe('ModuleNotFoundError');
    expect((await run(k, 'plt = None\n6 * 7')).result).toEqual({ 'text/plain': '42' });
  });
});
