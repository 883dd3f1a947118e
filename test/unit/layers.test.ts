/**
 * The layers of docs/architecture.md: data flows cli → front end (tui, modes) → engine (src/eval)
 * → kernel process. Which module may import which (front ends only through src/eval/index.ts and
 * its early parts, no front end in the engine, no process started by the notebook, no import
 * cycle) is dependency-cruiser's job (.dependency-cruiser.cjs, in `npm run lint`); what it cannot
 * see is kept here: the engine never writes to the terminal, and start.ts gives only what
 * index.ts gives too.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
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

const rel = (file: string) => relative(SRC, file);
const engine = sourcesUnder(join(SRC, 'eval'));

describe('the layers', () => {
  it('reads the engine', () => {
    expect(engine.length).toBeGreaterThan(50);
  });

  it("start.ts, the engine's early part, gives only what index.ts gives, from the same modules", () => {
    // Everything start.ts gives, index.ts gives too, from the same module.
    const exportsOf = (file: string) =>
      [
        ...readFileSync(join(SRC, 'eval', file), 'utf8').matchAll(/^export \{([^}]*)\} from '([^']+)'/gm),
      ].flatMap(([, names, from]) =>
        (names as string)
          .replace(/\/\*[\s\S]*?\*\//g, '') // (a name's JSDoc tag, knip's @public)
          .split(',')
          .map((n) => `${n.replace(/^\s*type\s+/, '').trim()} from ${from}`),
      );
    const early = exportsOf('start.ts').filter((e) => !e.startsWith(' from'));
    expect(early.length).toBeGreaterThan(3);
    expect(early.filter((e) => !exportsOf('index.ts').includes(e))).toEqual([]);
  });

  it('the engine never writes to the terminal', () => {
    const writes = engine.flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .map((line, i) => ({ line, i }))
        // (A cell's code the engine sends a kernel, in a string, is not the engine's own writing.)
        .filter(({ line }) => /(?<!['"`])(process\.(stdout|stderr)\b|\bconsole\.\w+\()/.test(line))
        .filter(({ line }) => !/^\s*(\*|\/\/)/.test(line))
        .map(({ i }) => `${rel(file)}:${i + 1}`),
    );
    expect(writes).toEqual([]);
  });
});
