/**
 * Saving the session: as a `# %%` script, or as a Jupyter notebook (nbformat 4.5) as Jupyter
 * writes it: streams, `display_data` and `execute_result` with their MIME bundles, errors, the
 * notebook's own execution counts, and complete `language_info`.
 *
 * Cells of the other language: in a Python notebook a JavaScript cell is saved as a
 * `%%script node` cell (IPython runs its body with Node; each such cell in a fresh process), and
 * its metadata says `"omp_eval": {"language": "js"}`. A JavaScript notebook (--lang js) is saved
 * for a Node kernel, and its Python cells keep their `%%py` first line.
 */
import { writeFileSync } from 'node:fs';
import stripAnsi from 'strip-ansi';
import type { Language, RemoteKernelInfo } from '../../eval/index.js';
import { type Output, type RichOutput, rowsOf, spillNote } from '../state/output.js';
import type { CellView } from '../state/reducer.js';

export interface SessionInfo {
  language: Language;
  pythonVersion?: string;
  nodeVersion?: string;
  /** The kernel on a Jupyter server running the notebook's cells (any language the server offers). */
  remote?: RemoteKernelInfo;
}

/** The cells of code, those not run too (after a failure in a paste): the session as typed. */
const codeCells = (cells: readonly CellView[]) => cells.filter((c) => c.kind !== 'info');

const LANGUAGE_LINE = /^%%(js|javascript|py|python)[ \t]*(\n|$)/;

export function toScript(cells: readonly CellView[]): string {
  return `${codeCells(cells)
    .map((c) => `# %%${c.title ? ` ${c.title}` : ''}\n${c.code}\n`)
    .join('\n')}`;
}

/** nbformat's multi-line string: lines keeping their newline. */
function sourceLines(text: string): string[] {
  const lines = text.split('\n');
  return lines.map((line, i) => (i < lines.length - 1 ? `${line}\n` : line)).filter((l) => l !== '');
}

/** A bundle as nbformat stores it: text as lines, the notebook's private types left out. */
function mimeData(bundle: Record<string, unknown>): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  for (const [mime, value] of Object.entries(bundle)) {
    if (mime.startsWith('application/x-omp-')) continue;
    if (typeof value === 'string') {
      data[mime] = mime.startsWith('image/') && mime !== 'image/svg+xml' ? value : sourceLines(value);
    } else if (value !== undefined) data[mime] = value;
  }
  return data;
}

function richOutput(rich: RichOutput, count: number | undefined): unknown {
  const metadata = rich.metadata ?? {};
  if (rich.kind === 'result') {
    return {
      output_type: 'execute_result',
      execution_count: count ?? null,
      data: mimeData(rich.bundle),
      metadata,
    };
  }
  return { output_type: 'display_data', data: mimeData(rich.bundle), metadata };
}

/** The cell's outputs in order: neighbouring stream rows joined, each rich output once. */
export function outputsOf(output: Output, count?: number): unknown[] {
  const outputs: unknown[] = [];
  let stream: { name: string; text: string[] } | undefined;
  let nextRich = 0;
  const flush = () => {
    if (stream)
      outputs.push({ output_type: 'stream', name: stream.name, text: sourceLines(stream.text.join('')) });
    stream = undefined;
  };
  const richUpTo = (index: number) => {
    for (; nextRich <= index && nextRich < output.rich.length; nextRich++) {
      flush();
      outputs.push(richOutput(output.rich[nextRich] as RichOutput, count));
    }
  };
  let error: string[] | undefined;
  let errorIndex = 0;
  const flushError = () => {
    if (!error) return;
    // The error's own name and value (a traceback's last line is not always `Name: value`: a
    // message of several lines, a note, a js stack); the last line only for an output kept without.
    const known = output.errors?.[errorIndex++];
    const last = error.at(-1) ?? '';
    const colon = last.indexOf(': ');
    outputs.push({
      output_type: 'error',
      ename: known ? known.ename : colon === -1 ? last : last.slice(0, colon),
      evalue: known ? known.evalue : colon === -1 ? '' : last.slice(colon + 2),
      traceback: error,
    });
    error = undefined;
  };
  // Where rows were left out, a line says how many and names the file that has them all.
  const rows = rowsOf(output);
  const note = () => {
    const text = spillNote(output);
    if (!text) return;
    flushError();
    const name = stream?.name ?? 'stdout';
    if (stream?.name !== name) flush();
    stream ??= { name, text: [] };
    stream.text.push(`[${text}]\n`);
  };
  for (const [i, row] of rows.entries()) {
    if (i === output.head.length) note();
    if (row.rich !== undefined) {
      flushError();
      richUpTo(row.rich);
      continue;
    }
    if (row.kind === 'image') continue;
    if (row.stream === 'error') {
      flush();
      error ??= [];
      error.push(stripAnsi(row.text));
      continue;
    }
    flushError();
    if (row.stream !== 'stdout' && row.stream !== 'stderr') continue; // the notebook's own notes
    if (stream?.name !== row.stream) {
      flush();
      stream = { name: row.stream, text: [] };
    }
    stream.text.push(`${stripAnsi(row.text)}${row.open ? '' : '\n'}`);
  }
  if (output.head.length >= rows.length) note();
  flushError();
  flush();
  richUpTo(output.rich.length - 1);
  return outputs;
}

const KERNELS = {
  py: (version = '') => ({
    kernelspec: { name: 'python3', display_name: 'Python 3 (ipykernel)', language: 'python' },
    language_info: {
      name: 'python',
      version,
      file_extension: '.py',
      mimetype: 'text/x-python',
      codemirror_mode: { name: 'ipython', version: 3 },
      pygments_lexer: 'ipython3',
      nbconvert_exporter: 'python',
    },
  }),
  js: (version = '') => ({
    kernelspec: { name: 'javascript', display_name: 'JavaScript (Node.js)', language: 'javascript' },
    language_info: {
      name: 'javascript',
      version,
      file_extension: '.js',
      mimetype: 'application/javascript',
      codemirror_mode: 'javascript',
    },
  }),
};

/** A remote kernel's own kernelspec and kernel_info language_info, so Jupyter opens the notebook with it. */
function remoteMetadata(remote: RemoteKernelInfo): Record<string, unknown> {
  const language = remote.languageInfo?.name ?? remote.kernelspec?.language ?? '';
  return {
    kernelspec: remote.kernelspec ?? { name: remote.kernelName, display_name: remote.kernelName, language },
    ...(remote.languageInfo ? { language_info: remote.languageInfo } : {}),
  };
}

/** The cell's source as Jupyter should read it in a notebook of `language`. */
function cellSource(cell: CellView, language: Language): { source: string; foreign: boolean } {
  const own = cell.language ?? language;
  if (own === language || language === 'js') return { source: cell.code, foreign: own !== language };
  // A JavaScript cell in a Python notebook: IPython's %%script magic runs it with Node.
  return { source: `%%script node\n${cell.code.replace(LANGUAGE_LINE, '')}`, foreign: true };
}

export function toNotebook(cells: readonly CellView[], session: SessionInfo = { language: 'py' }): string {
  const version = session.language === 'js' ? session.nodeVersion : session.pythonVersion;
  const notebook = {
    nbformat: 4,
    nbformat_minor: 5,
    metadata:
      session.remote && session.language === 'py'
        ? remoteMetadata(session.remote)
        : KERNELS[session.language](version),
    cells: notebookCells(cells, session.language),
  };
  return `${JSON.stringify(notebook, null, 1)}\n`;
}

interface NotebookCell {
  outputs: unknown[];
  [field: string]: unknown;
}

/**
 * The code cells as nbformat's (a cell not run has no count and no outputs). What threads printed
 * between cells (shown as a block of its own) is saved with the last cell that ran before it, as
 * Jupyter keeps a thread's output in a cell's outputs.
 */
function notebookCells(cells: readonly CellView[], language: Language): NotebookCell[] {
  const saved: NotebookCell[] = [];
  /** The last cell that ran (a cell a failure left unrun printed nothing). */
  let ran: NotebookCell | undefined;
  for (const c of cells) {
    if (c.kind === 'info') {
      if (c.background && ran) appendOutputs(ran.outputs, outputsOf(c.output));
      continue;
    }
    const { source, foreign } = cellSource(c, language);
    const metadata: Record<string, unknown> = {};
    if (c.title) metadata.title = c.title;
    if (foreign) metadata.omp_eval = { language: c.language };
    // Who ran it, in a followed session (omp-eval attach): a cell without it is the person's.
    if (c.party)
      metadata.omp_eval = {
        ...(metadata.omp_eval as object | undefined),
        by: c.party.by,
        call: c.party.call,
        ...(c.party.client ? { client: c.party.client } : {}),
      };
    const cell: NotebookCell = {
      cell_type: 'code',
      id: `cell-${saved.length + 1}`,
      execution_count: c.executionCount ?? null,
      metadata,
      source: sourceLines(source),
      outputs: outputsOf(c.output, c.executionCount),
    };
    saved.push(cell);
    if (c.status !== 'skipped') ran = cell;
  }
  return saved;
}

type StreamOutput = { output_type: 'stream'; name: string; text: string[] };
const isStream = (o: unknown): o is StreamOutput => (o as StreamOutput)?.output_type === 'stream';

/** Text lines whose last ends with a newline, as a block of lines shows it. */
function closed(text: readonly string[]): string[] {
  const last = text.at(-1);
  return last === undefined || last.endsWith('\n') ? [...text] : [...text.slice(0, -1), `${last}\n`];
}

/** `more` after `outputs`: a stream joined to a stream of the same name before it, as Jupyter joins them. */
function appendOutputs(outputs: unknown[], more: unknown[]): void {
  for (const output of more) {
    const last = outputs.at(-1);
    if (!isStream(output)) outputs.push(output);
    else if (isStream(last) && last.name === output.name)
      outputs[outputs.length - 1] = {
        ...last,
        text: sourceLines([...closed(last.text), ...closed(output.text)].join('')),
      };
    else outputs.push({ ...output, text: closed(output.text) });
  }
}

/**
 * Writes the session; the format follows the extension (.ipynb, else a script). Without `replace`
 * an existing file (or link) is left as it is: the write fails with EEXIST.
 */
export function saveSession(
  path: string,
  cells: readonly CellView[],
  session: SessionInfo,
  replace = true,
): string {
  const notebook = path.endsWith('.ipynb');
  writeFileSync(path, notebook ? toNotebook(cells, session) : toScript(cells), {
    flag: replace ? 'w' : 'wx',
  });
  return notebook ? 'notebook' : 'script';
}
