/**
 * Splits a Python script into cells as Jupytext reads it: `# %%` lines (the percent format of
 * VS Code, Spyder and Jupytext; `# %%%` and deeper are Spyder's sub-cells, cells too; `# %%time`
 * is a commented magic, not a marker), `# In[ ]:` or
 * `# In[1]` (nbconvert's script export) and `# <codecell>` (the old IPython format); a JavaScript
 * one on `// %%`. A marker inside a Python triple-quoted string is text, as for Jupytext.
 */
import type { Language } from './language.js';

export interface ScriptCell {
  code: string;
  title?: string;
  /** 1-based line of the cell's first code line in the script (0 in a notebook: it has none). */
  line: number;
}

/**
 * `# %%` (or a sub-cell's `# %%%`, as Jupytext's `%%(%*)`) then a space or the end of the line:
 * `# %%time` is a magic commented out.
 */
const PERCENT = { py: /^#\s*%%%*(?=\s|$)(.*)$/, js: /^\/\/\s*%%%*(?=\s|$)(.*)$/ };
const IN_MARKER = /^#\s*In\[\s*\d*\s*\]:?\s*$/;
const SPHINX_MARKER = /^#\s*<(codecell|markdowncell|rawcell)>\s*$/;

/** Whether a line starts a new cell, and what kind. */
function marker(line: string, language: Language): { title: string; markdown: boolean } | undefined {
  const percent = PERCENT[language].exec(line);
  if (percent) {
    const title = (percent[1] ?? '').trim();
    return { title, markdown: /\[(markdown|md|raw)\]/i.test(title) };
  }
  if (language !== 'py') return undefined;
  if (IN_MARKER.test(line)) return { title: '', markdown: false };
  const sphinx = SPHINX_MARKER.exec(line);
  if (sphinx) return { title: '', markdown: sphinx[1] !== 'codecell' };
  return undefined;
}

/**
 * Whether each line begins inside a Python triple-quoted string, where a `# %%` is text, not a
 * marker (as Jupytext reads it). Quotes inside a one-line string or after a `#` comment open
 * nothing; a backslash escapes the next character.
 */
export function quotedLines(lines: readonly string[]): boolean[] {
  let triple: string | undefined;
  return lines.map((line) => {
    const quoted = triple !== undefined;
    let single: string | undefined;
    for (let i = 0; i < line.length; i++) {
      const c = line[i] as string;
      if (triple !== undefined || single !== undefined) {
        if (c === '\\') i++;
        else if (triple !== undefined && line.startsWith(triple, i)) {
          triple = undefined;
          i += 2;
        } else if (c === single) single = undefined;
      } else if (c === '#') break;
      else if (c === '"' || c === "'") {
        if (line.startsWith(c.repeat(3), i)) {
          triple = c.repeat(3);
          i += 2;
        } else single = c;
      }
    }
    return quoted;
  });
}

/** The marker each line is, if any (none inside a Python string). */
function markers(lines: readonly string[], language: Language) {
  const quoted = language === 'py' ? quotedLines(lines) : [];
  return lines.map((line, i) => (quoted[i] ? undefined : marker(line.replace(/\r$/, ''), language)));
}

/** Whether a script (a paste, say) has cell markers at all. */
export function hasCellMarkers(source: string, language: Language = 'py'): boolean {
  return markers(source.split('\n'), language).some((found) => found !== undefined);
}

export function splitCells(source: string, language: Language = 'py'): ScriptCell[] {
  const lines = source
    .replace(/^\uFEFF/, '')
    .replace(/\r\n/g, '\n')
    .split('\n');
  const cells: ScriptCell[] = [];
  let current: { title?: string; line: number; lines: string[]; markdown: boolean } = {
    line: 1,
    lines: [],
    markdown: false,
  };
  const flush = () => {
    const code = current.lines.join('\n').replace(/\s+$/, '');
    if (!current.markdown && code.trim()) {
      const leading = current.lines.findIndex((l) => l.trim() !== '');
      cells.push({
        code: current.lines.slice(leading).join('\n').replace(/\s+$/, ''),
        ...(current.title ? { title: current.title } : {}),
        line: current.line + leading,
      });
    }
  };
  const found = markers(lines, language);
  lines.forEach((text, i) => {
    const marked = found[i];
    if (marked) {
      flush();
      const title = marked.title.replace(/\[[^\]]*\]/g, '').trim();
      current = { ...(title ? { title } : {}), line: i + 2, lines: [], markdown: marked.markdown };
    } else {
      current.lines.push(text);
    }
  });
  flush();
  return cells;
}

/**
 * The code cells of a Jupyter notebook (nbformat 4 JSON), in its kernel's language (Python unless
 * its metadata says JavaScript, or `language` when given); markdown and raw cells are left out. Throws an Error that says
 * what is wrong with a file that is no such notebook. A cell's `line` is 0: a notebook has none.
 */
export function notebookCells(
  text: string,
  language?: Language,
): { language: Language; cells: ScriptCell[] } {
  let document: unknown;
  try {
    document = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (err) {
    throw new Error(`not a notebook: ${(err as Error).message}`);
  }
  const nb = document as {
    cells?: unknown;
    metadata?: { kernelspec?: { language?: unknown }; language_info?: { name?: unknown } };
  };
  if (!nb || typeof nb !== 'object' || !Array.isArray(nb.cells))
    throw new Error('not a notebook: no "cells" list (nbformat 4)');
  const named = nb.metadata?.kernelspec?.language ?? nb.metadata?.language_info?.name ?? 'python';
  const name = language ? (language === 'js' ? 'javascript' : 'python') : String(named).toLowerCase();
  if (name !== 'python' && name !== 'javascript')
    throw new Error(
      `the notebook's language is ${String(named)}: omp-eval runs Python and JavaScript notebooks (--lang py or js runs its cells as one of those)`,
    );
  const cells: ScriptCell[] = [];
  for (const [i, cell] of (nb.cells as unknown[]).entries()) {
    const { cell_type: type, source } = (cell ?? {}) as { cell_type?: unknown; source?: unknown };
    if (type !== 'code') continue;
    const code = Array.isArray(source) ? source.join('') : source;
    if (typeof code !== 'string') throw new Error(`not a notebook: cell ${i + 1} has no source text`);
    if (code.trim()) cells.push({ code: code.replace(/\s+$/, ''), line: 0 });
  }
  return { language: name === 'javascript' ? 'js' : 'py', cells };
}

const LANGUAGE_MAGIC = /^%%(js|javascript|py|python)[ \t]*$/;

/**
 * The language of a cell typed in a front end: `%%js` (or `%%javascript`) as the first line makes
 * it JavaScript, `%%py` (`%%python`) Python; otherwise `fallback`. The magic line is blanked
 * (spaces of its length) rather than removed, so line numbers and offsets stay those of the cell.
 */
export function cellLanguage(code: string, fallback: Language): { language: Language; code: string } {
  const end = code.indexOf('\n');
  const first = end === -1 ? code : code.slice(0, end);
  const magic = LANGUAGE_MAGIC.exec(first.trimEnd());
  if (!magic) return { language: fallback, code };
  const language = magic[1]?.startsWith('j') ? 'js' : 'py';
  return { language, code: ' '.repeat(first.length) + (end === -1 ? '' : code.slice(end)) };
}
