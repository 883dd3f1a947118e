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

// biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI colour is what it removes
const ANSI = /\x1b\[[0-9;]*m/g;

/**
 * The cell's outputs as nbformat outputs: neighbouring rows of one kind joined, colour removed,
 * a traceback as an `error` output, and the notebook's own lines (status events, notices) left out.
 */
function outputsOf(cell: CellView): unknown[] {
  const outputs: unknown[] = [];
  let run: { kind: string; lines: string[] } | undefined;
  const flush = () => {
    if (!run) return;
    const text = run.lines.join('');
    if (run.kind === 'result') {
      outputs.push({
        output_type: 'execute_result',
        execution_count: cell.executionCount ?? null,
        data: { 'text/plain': sourceLines(text.replace(/\n$/, '')) },
        metadata: {},
      });
    } else if (run.kind === 'error') {
      const traceback = text.replace(/\n$/, '').split('\n');
      const last = traceback.at(-1) ?? '';
      const colon = last.indexOf(': ');
      outputs.push({
        output_type: 'error',
        ename: colon === -1 ? last : last.slice(0, colon),
        evalue: colon === -1 ? '' : last.slice(colon + 2),
        traceback,
      });
    } else {
      outputs.push({ output_type: 'stream', name: run.kind, text: sourceLines(text) });
    }
    run = undefined;
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
    if (row.stream === 'status' || row.stream === 'notice') continue;
    const kind =
      row.stream === 'stderr'
        ? 'stderr'
        : row.stream === 'result' || row.stream === 'error'
          ? row.stream
          : 'stdout';
    if (run?.kind !== kind) {
      flush();
      run = { kind, lines: [] };
    }
    run.lines.push(`${row.text.replace(ANSI, '')}${row.open ? '' : '\n'}`);
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
