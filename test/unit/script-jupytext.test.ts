import { describe, expect, it } from 'vitest';
import { hasCellMarkers, quotedLines, splitCells } from '../../src/eval/script.js';

describe('cell markers as Jupytext reads them', () => {
  it('takes "# %%magic" for a commented magic, not a marker', () => {
    const cells = splitCells('# %%\nx = 1\n# %%time\ny = 2\n# %% second\nz = 3');
    expect(cells.map((c) => c.code)).toEqual(['x = 1\n# %%time\ny = 2', 'z = 3']);
    expect(cells[1]?.title).toBe('second');
    expect(hasCellMarkers('# %%time\nx = 1')).toBe(false);
  });

  it("takes Spyder's sub-cell markers (# %%%, # %%%%) as cells, after a markdown cell too", () => {
    const cells = splitCells('# %% [markdown]\n# Text\n# %%% sub\nx = 1\n# %%%%\ny = 2\n# %%%time\nz = 3');
    expect(cells.map((c) => [c.code, c.title ?? '', c.line])).toEqual([
      ['x = 1', 'sub', 4],
      ['y = 2\n# %%%time\nz = 3', '', 6],
    ]);
    expect(splitCells('// %%% a\nlet a = 1', 'js').map((c) => c.title)).toEqual(['a']);
  });

  it('takes "# In[1]" without a colon and "# <codecell>" as markers', () => {
    expect(splitCells('# In[1]\na = 1\n# In[2]:\nb = 2').map((c) => c.code)).toEqual(['a = 1', 'b = 2']);
    const old = splitCells('# <codecell>\na = 1\n# <markdowncell>\n# Some *text*\n# <codecell>\nb = 2');
    expect(old.map((c) => c.code)).toEqual(['a = 1', 'b = 2']);
    expect(hasCellMarkers('x = 1\n# <codecell>\ny = 2')).toBe(true);
  });

  it('takes no marker inside a triple-quoted string, as Jupytext', () => {
    const script = 's = """\n# %% not a cell\n"""\nprint(repr(s))';
    expect(splitCells(script).map((c) => c.code)).toEqual([script]);
    expect(hasCellMarkers(script)).toBe(false);
    // After the string ends, a marker is one again; quotes in one-line strings or comments open nothing.
    const mixed = [
      'def f():',
      "    '''Docs.",
      '# %% inside',
      "    '''",
      '# %% second',
      "a = \"'''\"  # '''",
      'b = \'x\\\'"""\'',
      '# %% third',
      'c = 1',
    ].join('\n');
    expect(splitCells(mixed).map((c) => c.title ?? '')).toEqual(['', 'second', 'third']);
    expect(quotedLines(mixed.split('\n'))).toEqual([
      false,
      false,
      true,
      true,
      false,
      false,
      false,
      false,
      false,
    ]);
  });

  it('keeps // %%x inside a JavaScript cell', () => {
    expect(splitCells('// %%\nlet a = 1\n// %%x\n// %% b\na', 'js').map((c) => c.code)).toEqual([
      'let a = 1\n// %%x',
      'a',
    ]);
  });
});
