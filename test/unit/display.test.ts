import { describe, expect, it } from 'vitest';
import {
  HTML_LIMIT,
  htmlToMarkdown,
  IMAGE_LIMIT,
  imageSize,
  renderBundle,
  statusEvent,
} from '../../src/eval/output/display.js';

const PNG_2x3 =
  'iVBORw0KGgoAAAANSUhEUgAAAAIAAAADCAYAAAC56t6BAAAAEElEQVR4nGNgYGD4z4AKAAH+AQHx3/eRAAAAAElFTkSuQmCC';
const JPEG_2x3 = Buffer.from(
  'ffd8ffe000104a46494600010100000100010000ffc0001108000300020301220002110103110100ffd9',
  'hex',
).toString('base64');

// What pandas 1.5 gives for DataFrame({"a": [1, 2], "b": ["x", "y"]}) with index name "idx".
const PANDAS_HTML = `<div>
<style scoped>
    .dataframe tbody tr th:only-of-type { vertical-align: middle; }
    .dataframe thead th { text-align: right; }
</style>
<table border="1" class="dataframe">
  <thead>
    <tr style="text-align: right;"><th></th><th>a</th><th>b</th></tr>
    <tr><th>idx</th><th></th><th></th></tr>
  </thead>
  <tbody>
    <tr><th>0</th><td>1</td><td>x</td></tr>
    <tr><th>1</th><td>2</td><td>y</td></tr>
  </tbody>
</table>
<p>2 rows × 2 columns</p>
</div>`;

describe('text precedence', () => {
  const all = { 'text/markdown': '**md**', 'text/plain': 'plain', 'text/html': '<i>html</i>' };

  it('follows the spec: markdown, then plain, then HTML', () => {
    expect(renderBundle(all)).toMatchObject({ text: '**md**', markdown: '**md**' });
    expect(renderBundle({ 'text/plain': 'plain', 'text/html': '<i>html</i>' })).toEqual(
      expect.objectContaining({ text: 'plain' }),
    );
    expect(renderBundle({ 'text/plain': 'plain', 'text/html': '<i>html</i>' })).not.toHaveProperty(
      'markdown',
    );
    expect(renderBundle({ 'text/html': '<i>html</i>' })).toMatchObject({
      text: '*html*',
      markdown: '*html*',
    });
  });

  it('ranks a text/plain that is only repr() below HTML, so a DataFrame shows as a table', () => {
    const frame = { 'text/html': PANDAS_HTML, 'text/plain': '     a  b\nidx      \n0    1  x\n1    2  y' };
    const out = renderBundle(frame, { plainIsRepr: true });
    expect(out.markdown).toBe(
      [
        '| idx | a | b |',
        '| ---: | ---: | --- |',
        '| 0 | 1 | x |',
        '| 1 | 2 | y |',
        '',
        '2 rows × 2 columns',
      ].join('\n'),
    );
    expect(out.text).toBe(out.markdown);
    expect(renderBundle(frame).text).toBe(frame['text/plain']);
    // Markdown still wins over HTML.
    expect(renderBundle(all, { plainIsRepr: true }).text).toBe('**md**');
  });

  it('keeps the repr when the HTML has nothing to read (a widget that is all script)', () => {
    const out = renderBundle(
      { 'text/html': '<script>render()</script><style>x{}</style>', 'text/plain': 'Widget()' },
      { plainIsRepr: true },
    );
    expect(out.text).toBe('Widget()');
    expect(out).not.toHaveProperty('markdown');
  });

  it('gives SVG and LaTeX a text fallback, and shows JSON that has no text', () => {
    expect(renderBundle({ 'image/svg+xml': '<svg viewBox="0 0 30 40"></svg>' }).text).toBe(
      '[SVG image 30×40]',
    );
    expect(renderBundle({ 'image/svg+xml': '<svg width="12px" height="8px"/>' }).text).toBe(
      '[SVG image 12×8]',
    );
    expect(renderBundle({ 'text/latex': '$x$' }).text).toBe('$x$');
    expect(renderBundle({ 'application/json': { a: [1] } })).toMatchObject({
      json: { a: [1] },
      text: '{\n  "a": [\n    1\n  ]\n}',
    });
  });

  it('never shows a status bundle as text, and reads its event', () => {
    const bundle = { 'application/x-omp-status': { op: 'find', count: 2 } };
    expect(statusEvent(bundle)).toEqual({ op: 'find', count: 2 });
    expect(statusEvent({ 'application/x-omp-status': { count: 2 } })).toBeUndefined();
    expect(renderBundle({ 'application/x-omp-status': 'odd' }).text).toBeUndefined();
  });
});

describe('images', () => {
  it('reads the pixel size of PNG and JPEG', () => {
    expect(imageSize('image/png', PNG_2x3)).toEqual({ width: 2, height: 3 });
    expect(imageSize('image/jpeg', JPEG_2x3)).toEqual({ width: 2, height: 3 });
    expect(imageSize('image/png', 'bm90IGEgcG5n')).toBeUndefined();
  });

  it('passes one image per bundle, PNG before JPEG', () => {
    const out = renderBundle({ 'image/jpeg': JPEG_2x3, 'image/png': PNG_2x3, 'text/plain': '<img>' });
    expect(out.images).toEqual([{ mime: 'image/png', data: PNG_2x3, width: 2, height: 3 }]);
    expect(out.mimeTypes).toEqual(['image/jpeg', 'image/png', 'text/plain']);
    expect(renderBundle({ 'image/jpeg': JPEG_2x3 }).images).toEqual([
      { mime: 'image/jpeg', data: JPEG_2x3, width: 2, height: 3 },
    ]);
  });

  it('leaves out image data that is not a base64 image of its type, and says so', () => {
    const out = renderBundle({ 'image/png': 'not base64 at all!!', 'text/plain': '<img>' });
    expect(out.images).toEqual([]);
    expect(out.text).toBe('<img>\n[image/png data that is not a base64 PNG image: not shown]');
    // JPEG bytes under image/png are not a PNG; the JPEG beside them still goes.
    const mixed = renderBundle({ 'image/png': JPEG_2x3, 'image/jpeg': JPEG_2x3 });
    expect(mixed.images).toEqual([{ mime: 'image/jpeg', data: JPEG_2x3, width: 2, height: 3 }]);
  });

  it('leaves a 50 MB image out with a notice that names its size', () => {
    const huge = PNG_2x3.slice(0, 32) + 'A'.repeat(Math.ceil((50e6 * 4) / 3) - 32);
    expect(huge.length).toBeGreaterThan(IMAGE_LIMIT);
    const out = renderBundle({ 'image/png': huge, 'text/plain': '<PIL.Image>' });
    expect(out.images).toEqual([]);
    expect(out.text).toBe(
      '<PIL.Image>\n[png image 2×3 of 50.0 MB not shown: images over 12.6 MB are left out]',
    );
  });
});

describe('HTML → markdown', () => {
  it('keeps tables as tables: spans expanded, header rows merged, pipes escaped, numbers right-aligned', () => {
    const html = `<table>
      <caption>Scores</caption>
      <thead>
        <tr><th></th><th colspan="2">A</th></tr>
        <tr><th></th><th>x</th><th>y</th></tr>
      </thead>
      <tbody>
        <tr><th rowspan="2">k</th><td>1</td><td>a|b</td></tr>
        <tr><td>2.5</td><td><b>bold</b><br>line</td></tr>
      </tbody>
    </table>`;
    expect(htmlToMarkdown(html)).toBe(
      [
        '**Scores**',
        '',
        '|  | A / x | A / y |',
        '| --- | ---: | --- |',
        '| k | 1 | a\\|b |',
        '|  | 2.5 | **bold** line |',
      ].join('\n'),
    );
  });

  it('makes the first row the header of a table without <thead>', () => {
    expect(htmlToMarkdown('<table><tr><td>k</td><td>v</td></tr><tr><td>a</td><td>1</td></tr></table>')).toBe(
      '| k | v |\n| --- | ---: |\n| a | 1 |',
    );
  });

  it('converts headings, lists, code and links, and drops scripts and styles', () => {
    const md = htmlToMarkdown(
      '<h1>T</h1><style>p{}</style><script>x()</script><p>See <a href="http://a.b">this</a> and <code>f()</code>.</p><ol><li>one</li><li>two</li></ol><pre><code>x = 1\n</code></pre>',
    );
    expect(md).toBe('# T\n\nSee [this](http://a.b) and `f()`.\n\n1.  one\n2.  two\n\n```\nx = 1\n```');
  });

  it('cuts a 10 MB table at a row boundary with a notice', () => {
    const rows = Array.from(
      { length: 200_000 },
      (_, i) => `<tr><td>${i}</td><td>${'y'.repeat(30)}</td></tr>`,
    );
    const html = `<table><thead><tr><th>n</th><th>s</th></tr></thead><tbody>${rows.join('\n')}</tbody></table>`;
    expect(html.length).toBeGreaterThan(10e6);
    const md = htmlToMarkdown(html);
    const lines = md.split('\n');
    expect(lines.slice(0, 3)).toEqual(['| n | s |', '| ---: | --- |', `| 0 | ${'y'.repeat(30)} |`]);
    const shown = lines.filter(
      (l) => l.startsWith('| ') && !l.startsWith('| n') && !l.startsWith('| -'),
    ).length;
    expect(shown).toBeGreaterThan(500);
    expect(lines.at(-2)).toBe('');
    expect(lines.at(-3)).toBe(`| ${shown - 1} | ${'y'.repeat(30)} |`);
    const notice = lines.at(-1) as string;
    expect(notice).toContain(`of ${(html.length / 1e6).toFixed(1)} MB of HTML are shown;`);
    expect(notice).toContain(`; ${(200_000 - shown).toLocaleString('en-US')} more table rows are not]`);
    const kB = Number(notice.match(/the first (\d+) kB/)?.[1]);
    expect(kB).toBeLessThanOrEqual(Math.ceil(HTML_LIMIT / 1e3));
    expect(kB).toBeGreaterThan(HTML_LIMIT / 1e3 - 1);
  });
});
