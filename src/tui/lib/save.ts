/**
 * Saving the session: as a `# %%` script, or as a Jupyter notebook (nbformat 4) with outputs.
 */
import { writeFileSync } from 'node:fs';
import { type Row, rowsOf } from '../state/output.js';
import type { CellView } from '../state/reducer.js';

const codeCells = (cells: CellView[]) => cells.filter((c) => c.kind !== 'info' && c.status !== 'skipped');

export function toScript(cells: CellView[]): string {
  return `${codeCells(cells)
    .map((c) => `# %%${c.title ? ` ${c.title}` : ''}\n${c.code}\n`)
    .join('\n')}`;
}

function sourceLines(text: string): string[] {
  const lines = text.split('\n');
  return lines.map((line, i) => (i < lines.length - 1 ? `${line}\n` : line)).filter((l) => l !== '');
}

function outputsOf(cell: CellView): unknown[] {
  const outputs: unknown[] = [];
  let stream: { name: string; text: string[] } | undefined;
  const flush = () => {
    if (stream) outputs.push({ output_type: 'stream', name: stream.name, text: stream.text });
    stream = undefined;
  };
  for (const row of rowsOf(cell.output) as Row[]) {
    if (row.kind === 'image') {
      flush();
      outputs.push({
        output_type: 'display_data',
        data: { [row.image.mime]: row.image.data, 'text/plain': ['<image>'] },
        metadata: {},
      });
      continue;
    }
    if (row.stream === 'result') {
      flush();
      outputs.push({
        output_type: 'execute_result',
        execution_count: cell.executionCount ?? null,
        data: { 'text/plain': [row.text] },
        metadata: {},
      });
      continue;
    }
    const name = row.stream === 'stderr' || row.stream === 'error' ? 'stderr' : 'stdout';
    if (stream?.name !== name) {
      flush();
      stream = { name, text: [] };
    }
    stream.text.push(`${row.text}${row.open ? '' : '\n'}`);
  }
  flush();
  return outputs;
}

export function toNotebook(cells: CellView[], language = { name: 'python', version: '' }): string {
  const notebook = {
    nbformat: 4,
    nbformat_minor: 5,
    metadata: {
      kernelspec: { name: 'python3', display_name: 'Python 3', language: 'python' },
      language_info: { name: language.name, version: language.version },
    },
    cells: codeCells(cells).map((c, i) => ({
      cell_type: 'code',
      id: `cell-${i + 1}`,
      execution_count: c.executionCount ?? null,
      metadata: c.title ? { title: c.title } : {},
      source: sourceLines(c.code),
      outputs: outputsOf(c),
    })),
  };
  return `${JSON.stringify(notebook, null, 1)}\n`;
}

/** Writes the session; the format follows the extension (.ipynb, else a script). */
export function saveSession(path: string, cells: CellView[], version = ''): string {
  const notebook = path.endsWith('.ipynb');
  writeFileSync(path, notebook ? toNotebook(cells, { name: 'python', version }) : toScript(cells));
  return notebook ? 'notebook' : 'script';
}
