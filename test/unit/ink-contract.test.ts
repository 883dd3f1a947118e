/**
 * The notebook's contract with Ink (docs/ink.md): the version pin, the patches the Ink bundle
 * applies (scripts/ink-patches.mjs, patches/), and the private fields the notebook reads, with
 * Ink's own files and with the bundle (dist/src/tui/ink.js, built by `npm run build`).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build, type Plugin } from 'esbuild';
import { describe, expect, it } from 'vitest';

interface Patch {
  name: string;
  pkg: string;
  version: string;
  file: string;
}
interface InkPatches {
  inkDir(): string;
  checkInkPin(root?: string, dir?: string): string;
  readPatches(dir?: string): Patch[];
  applyInkPatch(patch: Patch, source: string, installed: string, ink?: string): string;
  inkPatches(): { plugin: Plugin; notApplied(): string[] };
  inkSubstitutions(lib: string): { plugin: Plugin; unused(): string[] };
}
const ROOT = new URL('../..', import.meta.url);
const SCRIPT = new URL('scripts/ink-patches.mjs', ROOT).href;
const load = async () => (await import(SCRIPT)) as InkPatches;

/** The installed package a patch targets, and its version. */
function target(patch: Patch): { path: string; version: string } {
  const dir = join(ROOT.pathname, 'node_modules', patch.pkg);
  const { version } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string };
  return { path: join(dir, patch.file), version };
}

describe('the Ink version', () => {
  it('is pinned exactly in package.json, and that version is installed', async () => {
    const { checkInkPin, inkDir } = await load();
    const { version } = JSON.parse(readFileSync(join(inkDir(), 'package.json'), 'utf8')) as {
      version: string;
    };
    expect(checkInkPin()).toBe(version);
  });

  it('fails loudly when package.json allows a range or names another version', async () => {
    const { checkInkPin, inkDir } = await load();
    const root = mkdtempSync(join(tmpdir(), 'ink-pin-'));
    const pin = (ink: string) =>
      writeFileSync(join(root, 'package.json'), JSON.stringify({ dependencies: { ink } }));
    pin('~6.8.0');
    expect(() => checkInkPin(root, inkDir())).toThrow(/must pin ink to one exact version.*"~6\.8\.0"/);
    pin('6.9.0');
    expect(() => checkInkPin(root, inkDir())).toThrow(/pins ink 6\.9\.0 but ink \d+\.\d+\.\d+ is installed/);
  });
});

describe('the patches', () => {
  it('are there, each with its reasons, and each applies to the installed file', async () => {
    const { readPatches, applyInkPatch } = await load();
    const patches = readPatches();
    expect(patches.map((p) => p.name)).toEqual([
      'patches/ansi-tokenize-same-styles.patch',
      'patches/ink-shared-output-cells.patch',
      'patches/yoga-decode-in-place.patch',
    ]);
    for (const patch of patches) {
      const text = readFileSync(new URL(patch.name, ROOT), 'utf8');
      for (const field of ['# Why:', '# Buys:', '# Guarded by:']) expect(text, patch.name).toContain(field);
      const { path, version } = target(patch);
      const source = readFileSync(path, 'utf8');
      const patched = applyInkPatch(patch, source, version);
      expect(patched, patch.name).not.toBe(source);
      expect(patched, patch.name).toMatch(/omp|return true\?/);
    }
  });

  it('fail naming the patch and the versions when the code they change is not as it was', async () => {
    const { readPatches, applyInkPatch } = await load();
    for (const patch of readPatches()) {
      const { path, version } = target(patch);
      // One context line of the patch's first hunk (one found once in the file) changed, as an
      // upgrade might change it.
      const lines = readFileSync(path, 'utf8').split('\n');
      const hunk = readFileSync(new URL(patch.name, ROOT), 'utf8').split('\n@@ ')[1] ?? '';
      const context = hunk
        .split('\n')
        .slice(1)
        .find((l) => l.startsWith(' ') && lines.filter((line) => line === l.slice(1)).length === 1);
      const at = lines.indexOf(context?.slice(1) ?? '\0');
      expect(at, patch.name).toBeGreaterThanOrEqual(0);
      lines[at] = `${lines[at]} // changed upstream`;
      const error = (() => {
        try {
          applyInkPatch(patch, lines.join('\n'), version, '6.8.0');
        } catch (e) {
          return (e as Error).message;
        }
      })();
      expect(error).toContain(`${patch.name} does not apply to ${patch.file} of ${patch.pkg}@${version}`);
      expect(error).toContain('(with ink@6.8.0)');
      expect(error).toContain('docs/ink.md');
    }
  });

  it('fail when the target package is another version, even where the text still matches', async () => {
    const { readPatches, applyInkPatch } = await load();
    const [patch] = readPatches();
    if (!patch) throw new Error('no patches');
    const { path } = target(patch);
    expect(() => applyInkPatch(patch, readFileSync(path, 'utf8'), '99.0.0', '6.8.0')).toThrow(
      `${patch.name} was made against ${patch.pkg}@${patch.version}, but ${patch.pkg}@99.0.0 (with ink@6.8.0) is installed`,
    );
  });
});

describe('the bundle', () => {
  /** What an Ink bundle of `entry` leaves unapplied: patches and substitutions. */
  async function unapplied(entry: string) {
    const { inkPatches, inkSubstitutions } = await load();
    const patches = inkPatches();
    const substitutions = inkSubstitutions(join(ROOT.pathname, 'dist/src/tui/text'));
    await build({
      plugins: [substitutions.plugin, patches.plugin],
      stdin: { contents: entry, resolveDir: ROOT.pathname, loader: 'js' },
      bundle: true,
      platform: 'node',
      format: 'esm',
      write: false,
      external: ['react', './devtools.js'],
      logLevel: 'silent',
    });
    return [...patches.notApplied(), ...substitutions.unused()];
  }

  it("applies every patch and substitution to Ink's files", async () => {
    const { inkDir } = await load();
    expect(await unapplied(`import ${JSON.stringify(join(inkDir(), 'build/index.js'))};`)).toEqual([]);
  });

  it("names each that changed nothing, as when Ink no longer loads its target (the build's error)", async () => {
    expect(await unapplied('export {};')).toEqual([
      'patches/ansi-tokenize-same-styles.patch (styledChars.js)',
      'patches/ink-shared-output-cells.patch (output.js)',
      'patches/yoga-decode-in-place.patch (yoga-wasm-base64-esm.js)',
      'string-width',
      'measure-text.js',
      'wrap-text.js',
    ]);
  });
});

/**
 * The private parts of Ink the notebook reads (terminal/inkTerminal.ts, hooks/useKeys.ts, the budget
 * test), each with the type it must have, and the raw input event useKeys listens to. Run in a
 * process of its own without CI variables: Ink subscribes to resizes only outside CI (is-in-ci).
 */
function probe(ink: string, instances: string, terminal?: string) {
  const script = `
    const { EventEmitter } = await import('node:events');
    const React = await import('react');
    const ink = await import(${JSON.stringify(ink)});
    const stdout = Object.assign(new EventEmitter(), { columns: 40, rows: 10, isTTY: true, write: () => true });
    const queue = [];
    const stdin = Object.assign(new EventEmitter(), {
      isTTY: true, setEncoding() {}, setRawMode() {}, resume() {}, pause() {}, ref() {}, unref() {},
      read: () => queue.shift() ?? null,
    });
    const heard = [];
    let emitter;
    function Probe() {
      const s = ink.useStdin();
      emitter = s.internal_eventEmitter;
      React.useEffect(() => {
        s.setRawMode(true);
        const on = (raw) => heard.push(raw);
        emitter.on('input', on);
        return () => emitter.off('input', on);
      }, []);
      return React.createElement(ink.Text, null, 'probe');
    }
    const app = ink.render(React.createElement(Probe), { stdout, stdin, patchConsole: false });
    await new Promise((r) => setTimeout(r, 50));
    queue.push('\\x1b[200~a\\tb\\x1b[201~');
    stdin.emit('readable');
    await new Promise((r) => setTimeout(r, 50));
    const instance = (${instances}).get(stdout);
    const types = {};
    for (const path of ['log', 'log.clear', 'log.sync', 'throttledLog.cancel', 'hasPendingThrottledRender',
      'lastOutput', 'lastOutputToRender', 'lastOutputHeight', 'unsubscribeResize', 'fullStaticOutput'])
      types[path] = typeof path.split('.').reduce((o, k) => o?.[k], instance);
    types['internal_eventEmitter.on'] = typeof emitter?.on;
    let hooks;
    ${terminal ? `hooks = await (await import(${JSON.stringify(terminal)})).adaptInk(stdout);` : ''}
    app.unmount();
    await app.waitUntilExit();
    process.stdout.write(JSON.stringify({ types, heard, hooks: hooks && Object.keys(hooks).sort() }));
    process.exit(0);
  `;
  const env = Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) => k !== 'CI' && k !== 'CONTINUOUS_INTEGRATION' && !k.startsWith('CI_'),
    ),
  );
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    encoding: 'utf8',
    cwd: ROOT,
    env: { ...env, NODE_ENV: 'production' },
  });
  // (restore-cursor shows the cursor on stderr as the process exits: Ink hid it on the fake TTY)
  expect(child.stderr.replaceAll('\x1b[?25h', '')).toBe('');
  return JSON.parse(child.stdout) as { types: Record<string, string>; heard: string[]; hooks?: string[] };
}

const FIELDS = {
  log: 'function',
  'log.clear': 'function',
  'log.sync': 'function',
  'throttledLog.cancel': 'function',
  hasPendingThrottledRender: 'boolean',
  lastOutput: 'string',
  lastOutputToRender: 'string',
  lastOutputHeight: 'number',
  unsubscribeResize: 'function',
  fullStaticOutput: 'string',
  'internal_eventEmitter.on': 'function',
};

describe("Ink's private parts the notebook reads", () => {
  it("are there in Ink's own files (tests run the notebook against them)", () => {
    const found = probe(
      'ink',
      "(await import(new URL('./instances.js', import.meta.resolve('ink')).href)).default",
    );
    expect(found.types).toEqual(FIELDS);
    // Raw text, escape sequences split from the text between them (useKeys parses them itself).
    expect(found.heard).toEqual(['\x1b[200~', 'a\tb', '\x1b[201~']);
  });

  it('are there in the bundle, and terminal/inkTerminal.ts takes hold of them', () => {
    const bundle = new URL('dist/src/tui/ink.js', ROOT).href;
    const found = probe(
      bundle,
      'await ink.inkInstances()',
      new URL('dist/src/tui/terminal/inkTerminal.js', ROOT).href,
    );
    expect(found.types).toEqual(FIELDS);
    expect(found.heard).toEqual(['\x1b[200~', 'a\tb', '\x1b[201~']);
    expect(found.hooks).toEqual(['dropHeldFrame', 'eraseForResize']);
  });
});
