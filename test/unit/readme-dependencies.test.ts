/** The README's list of runtime dependencies names every one of package.json's, and no other. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const root = new URL('../../', import.meta.url);

describe("the README's runtime dependencies", () => {
  it("are package.json's dependencies, each with a reason", () => {
    const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    const readme = readFileSync(new URL('README.md', root), 'utf8');
    const section = readme.split('The runtime dependencies')[1]?.split('\n\n')[1] ?? '';
    const listed = [...section.matchAll(/^- `([^`]+)`: \S/gm)].map((m) => m[1]);
    expect(listed).toEqual(Object.keys(pkg.dependencies));
  });
});
