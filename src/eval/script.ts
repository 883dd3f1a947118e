/**
 * Splits a Python script into cells on `# %%` lines (the percent format of VS Code, Spyder and
 * Jupytext) and `# In[ ]:` markers (nbconvert's script export).
 */
export interface ScriptCell {
  code: string;
  title?: string;
  /** 1-based line of the cell's first code line in the script. */
  line: number;
}

const PERCENT = /^#\s*%%(.*)$/;
const IN_MARKER = /^#\s*In\[\s*\d*\s*\]:\s*$/;

export function splitCells(source: string): ScriptCell[] {
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
  lines.forEach((text, i) => {
    const percent = PERCENT.exec(text);
    if (percent || IN_MARKER.test(text)) {
      flush();
      let title = percent ? (percent[1] ?? '').trim() : '';
      const markdown = /\[(markdown|md|raw)\]/i.test(title);
      title = title.replace(/\[[^\]]*\]/g, '').trim();
      current = { ...(title ? { title } : {}), line: i + 2, lines: [], markdown };
    } else {
      current.lines.push(text);
    }
  });
  flush();
  return cells;
}
