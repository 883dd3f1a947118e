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
});
