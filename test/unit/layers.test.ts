/**
 * The layers of docs/architecture.md, kept by a test: data flows cli → front end (tui, modes) →
 * engine (src/eval) → kernel process. Front ends reach the engine only through its public
 * surface, src/eval/index.ts (and src/eval/start.ts and quickstart.ts, the parts a command may load
 * before the rest); the engine imports no front end and never writes to the terminal; the notebook never
 * starts a process.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

function sourcesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourcesUnder(path);
    return /\.tsx?$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Every module a file imports: static, re-exported and dynamic, as written. */
function specifiersOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const found = [
    ...text.matchAll(/^\s*(?:import|export)\s[^;]*?\sfrom\s+'([^']+)'/gms),
    ...text.matchAll(/^\s*import\s+'([^']+)'/gm),
    ...text.matchAll(/\bimport\(\s*'([^']+)'\s*\)/g),
  ];
  return found.map((m) => m[1] as string);
}

/** Where a relative specifier leads, as a path relative to src/ (`eval/index.ts`). */
function target(file: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  return relative(SRC, resolve(dirname(file), specifier)).replace(/\.js$/, '.ts');
}

const rel = (file: string) => relative(SRC, file);
const frontEnds = [
  ...sourcesUnder(join(SRC, 'tui')),
  ...sourcesUnder(join(SRC, 'modes')),
  join(SRC, 'cli.ts'),
  join(SRC, 'main.ts'),
];
const engine = sourcesUnder(join(SRC, 'eval'));

describe('the layers', () => {
  it('finds the imports it checks', () => {
    expect(specifiersOf(join(SRC, 'tui', 'backend.ts')).some((s) => s.endsWith('eval/index.js'))).toBe(true);
    expect(engine.length).toBeGreaterThan(50);
  });

  it('front ends reach the engine only through src/eval/index.ts (or start.ts and quickstart.ts, its early parts)', () => {
    const outside = frontEnds.flatMap((file) =>
      specifiersOf(file)
        .map((s) => target(file, s))
        .filter(
          (t) =>
            t?.startsWith('eval/') &&
            t !== 'eval/index.ts' &&
            t !== 'eval/start.ts' &&
            t !== 'eval/quickstart.ts',
        )
        .map((t) => `${rel(file)} → ${t}`),
    );
    expect(outside).toEqual([]);
    // Everything start.ts gives, index.ts gives too, from the same module.
    const exportsOf = (file: string) =>
      [
        ...readFileSync(join(SRC, 'eval', file), 'utf8').matchAll(/^export \{([^}]*)\} from '([^']+)'/gm),
      ].flatMap(([, names, from]) =>
        (names as string).split(',').map((n) => `${n.replace(/^\s*type\s+/, '').trim()} from ${from}`),
      );
    const early = exportsOf('start.ts').filter((e) => !e.startsWith(' from'));
    expect(early.length).toBeGreaterThan(3);
    expect(early.filter((e) => !exportsOf('index.ts').includes(e))).toEqual([]);
  });

  it('the engine imports no front end and never writes to the terminal', () => {
    const upward = engine.flatMap((file) =>
      specifiersOf(file)
        .map((s) => target(file, s))
        .filter((t) => t && /^(tui|modes|render)\/|^cli\.ts$/.test(t))
        .map((t) => `${rel(file)} → ${t}`),
    );
    expect(upward).toEqual([]);
    const writes = engine.flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .map((line, i) => ({ line, i }))
        .filter(({ line }) => /process\.(stdout|stderr)\b|\bconsole\.\w+\(/.test(line))
        .filter(({ line }) => !/^\s*(\*|\/\/)/.test(line))
        .map(({ i }) => `${rel(file)}:${i + 1}`),
    );
    expect(writes).toEqual([]);
  });

  it('the notebook never starts a process: it talks to the engine', () => {
    const spawning = sourcesUnder(join(SRC, 'tui')).flatMap((file) =>
      specifiersOf(file)
        .filter((s) => /^(node:)?child_process$|^execa$/.test(s))
        .map((s) => `${rel(file)} → ${s}`),
    );
    expect(spawning).toEqual([]);
  });
});
