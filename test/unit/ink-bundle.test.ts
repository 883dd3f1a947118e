/**
 * The notebook's Ink bundle (scripts/bundle-ink.mjs, built by `npm run build`): what it changes in
 * the libraries it bundles holds in the built file.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const INK = new URL('../../dist/src/tui/ink.js', import.meta.url).href;

describe('the Ink bundle', () => {
  it("lays out a frame without touching Node's fetch (yoga's WebAssembly is decoded in place)", () => {
    // The first touch of `fetch` loads undici, some 25 ms of the notebook's start.
    const script = `
      let touched = false;
      const real = globalThis.fetch;
      Object.defineProperty(globalThis, 'fetch', { configurable: true, get() { touched = true; return real; } });
      const { PassThrough } = await import('node:stream');
      const React = await import('react');
      const { render, Text } = await import(${JSON.stringify(INK)});
      const stdout = Object.assign(new PassThrough(), { columns: 80, rows: 24, isTTY: false });
      let out = '';
      stdout.on('data', (d) => { out += d; });
      const app = render(React.createElement(Text, null, 'laid out'), { stdout, patchConsole: false });
      app.unmount();
      await app.waitUntilExit();
      process.stdout.write(JSON.stringify({ touched, drawn: out.includes('laid out') }));
    `;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      encoding: 'utf8',
      env: { ...process.env, NODE_ENV: 'production' },
    });
    expect(child.stderr).toBe('');
    expect(JSON.parse(child.stdout)).toEqual({ touched: false, drawn: true });
  });

  it('draws the same frames as Ink itself (blank cells, caches and style diffs shared across frames)', () => {
    // Colours, nested and raw escape codes, wide characters, borders, truncation and clipping,
    // drawn eight times with changes: every frame whole (debug), with the bundle and with Ink.
    const script = (ink: string) => `
      const { PassThrough } = await import('node:stream');
      const React = await import('react');
      const { render, Text, Box } = await import(${JSON.stringify(ink)});
      const h = React.createElement;
      const stdout = Object.assign(new PassThrough(), { columns: 60, rows: 20, isTTY: false });
      let out = '';
      stdout.on('data', (d) => { out += d; });
      const frame = (n) => h(Box, { flexDirection: 'column' },
        h(Text, { color: 'green', bold: true }, '⠋ [' + n + '] running', h(Text, { dimColor: true }, ' · ' + n + '.0 s')),
        h(Box, { borderStyle: 'round', flexDirection: 'column' },
          h(Text, null, h(Text, { color: 'red' }, 'def'), ' f(x): ', h(Text, { inverse: true }, 'return'), ' x + 1'),
          h(Text, { backgroundColor: 'blue', underline: true }, '漢字 and 😀 emoji ' + 'x'.repeat(n))),
        ...Array.from({ length: 6 }, (_, i) => h(Text, { key: i, wrap: 'truncate-end', color: i % 2 ? 'yellow' : undefined, italic: i === 3 }, 'line ' + (i + n) + ' ' + 'ab'.repeat(5 + i))),
        h(Box, { height: 2, overflow: 'hidden', flexDirection: 'column' }, h(Text, null, 'clipped 1'), h(Text, { strikethrough: true }, 'clipped 2'), h(Text, null, 'clipped 3')),
        h(Text, { color: '#ff8800' }, '\\x1b[1mraw bold\\x1b[22m then plain ' + n));
      const app = render(frame(0), { stdout, patchConsole: false, debug: true });
      for (let n = 1; n < 8; n++) app.rerender(frame(n));
      app.unmount();
      await app.waitUntilExit();
      process.stdout.write(out);
    `;
    const draw = (ink: string) =>
      spawnSync(process.execPath, ['--input-type=module', '-e', script(ink)], {
        encoding: 'utf8',
        cwd: new URL('../..', import.meta.url),
        env: { ...process.env, NODE_ENV: 'production', FORCE_COLOR: '3' },
      });
    const ink = draw('ink');
    const bundle = draw(INK);
    expect(bundle.stderr).toBe('');
    expect(ink.stderr).toBe('');
    expect(ink.stdout).toContain('\x1b[');
    expect(ink.stdout.split('running').length).toBeGreaterThan(8); // every frame drawn
    expect(bundle.stdout).toBe(ink.stdout);
  });
});
