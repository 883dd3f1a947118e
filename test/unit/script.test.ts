import { describe, expect, it } from 'vitest';
import { splitCells } from '../../src/eval/script.js';

describe('splitCells', () => {
  it('splits on # %% lines and keeps titles and line numbers', () => {
    const src =
      'import os\n\n# %% Load\nx = 1\n\n#%%\ny = 2\n# %% [markdown]\n# # Heading\n# %% Plot [python]\nprint(x)\n';
    expect(splitCells(src)).toEqual([
      { code: 'import os', line: 1 },
      { code: 'x = 1', title: 'Load', line: 4 },
      { code: 'y = 2', line: 7 },
      { code: 'print(x)', title: 'Plot', line: 11 },
    ]);
  });

  it('splits on nbconvert In[ ] markers', () => {
    const src = '#!/usr/bin/env python\n# coding: utf-8\n\n# In[1]:\n\n\na = 1\n\n\n# In[ ]:\n\n\nb = a\n';
    expect(splitCells(src).map((c) => c.code)).toEqual([
      '#!/usr/bin/env python\n# coding: utf-8',
      'a = 1',
      'b = a',
    ]);
  });

  it('gives a script without markers as one cell, and drops empty cells', () => {
    expect(splitCells('a = 1\nb = 2\n')).toEqual([{ code: 'a = 1\nb = 2', line: 1 }]);
    expect(splitCells('# %%\n\n# %%\n   \n')).toEqual([]);
    expect(splitCells('')).toEqual([]);
  });

  it('keeps indentation and CRLF scripts work', () => {
    expect(splitCells('# %%\r\nif True:\r\n    x = 1\r\n')).toEqual([
      { code: 'if True:\n    x = 1', line: 2 },
    ]);
  });
});
