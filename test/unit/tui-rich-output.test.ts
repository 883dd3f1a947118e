/**
 * Rich output in the notebook as the engine sends it: bundles and display metadata kept for
 * saving as Jupyter does, images drawn at the size their metadata asks for, clear_output.
 */
import stripAnsi from 'strip-ansi';
import { describe, expect, it } from 'vitest';
import type { OutputEvent } from '../../src/eval/index.js';
import { CELL_PX, type ImageMode, imageColumns } from '../../src/tui/rendering/images.js';
import { CellEvents, type EventContext } from '../../src/tui/session/cellEvents.js';
import { outputsOf } from '../../src/tui/session/save.js';
import { type ImageRow, rowsOf } from '../../src/tui/state/output.js';

/** A PNG of 2 × 4 pixels. */
async function png(): Promise<string> {
  const { Jimp } = await import('jimp');
  return (await new Jimp({ width: 2, height: 4, color: 0x3366ccff }).getBuffer('image/png')).toString(
    'base64',
  );
}

function events(imageMode: ImageMode = 'off') {
  const ctx: EventContext = {
    imageMode,
    color: true,
    columns: () => 100,
    restarting: () => false,
    onInput: () => {},
    onCd: () => {},
    onNextInput: () => {},
  };
  return new CellEvents(ctx, () => ({ push() {}, end() {}, where: {} }));
}

const image = (data: string, metadata?: Record<string, unknown>): OutputEvent => ({
  kind: 'display',
  images: [{ mime: 'image/png', data, width: 2, height: 4 }],
  bundle: { 'image/png': data, 'text/plain': '<IPython.core.display.Image object>' },
  ...(metadata ? { metadata } : {}),
});

async function imageRow(mode: ImageMode, metadata?: Record<string, unknown>): Promise<ImageRow> {
  const cell = events(mode);
  cell.onEvent(image(await png(), metadata));
  await cell.drain(true);
  return rowsOf(cell.buffer.snapshot()).find((r): r is ImageRow => r.kind === 'image') as ImageRow;
}

describe('rich output', () => {
  it('keeps the bundle as sent and its metadata: .ipynb outputs as Jupyter writes them', async () => {
    const cell = events();
    cell.onEvent({
      kind: 'display',
      images: [],
      text: '**x**',
      markdown: '**x**',
      bundle: { 'text/html': '<b>x</b>', 'text/plain': '<HTML>' },
      metadata: { 'text/html': { isolated: true } },
    });
    await cell.drain(true);
    expect(outputsOf(cell.buffer.snapshot())).toEqual([
      {
        output_type: 'display_data',
        data: { 'text/html': ['<b>x</b>'], 'text/plain': ['<HTML>'] },
        metadata: { 'text/html': { isolated: true } },
      },
    ]);
  });

  it('draws an image at the width (in pixels) its metadata asks for, in half blocks and natively', async () => {
    const plain = await imageRow('blocks');
    const wide = await imageRow('blocks', { 'image/png': { width: 10 * CELL_PX.width } });
    const width = (row: ImageRow) =>
      Math.max(
        ...stripAnsi(row.ansi ?? '')
          .split('\n')
          .map((l) => l.length),
      );
    expect(width(plain)).toBe(2); // no larger than its pixels
    expect(width(wide)).toBe(10);
    expect((await imageRow('kitty', { 'image/png': { width: 10 * CELL_PX.width } })).columns).toBe(10);
    expect(imageColumns({ width: 640 }, { width: 5000, height: 32 }, 80, 16)).toEqual({
      columns: 80,
      rows: 2,
    });
    expect(imageColumns({ width: 640 }, { width: 'wide' }, 80, 16)).toEqual({ columns: 80, rows: 16 });
    expect(imageColumns({}, undefined, 80, 16)).toEqual({ columns: 80, rows: 16 });
  });

  it('clear_output: the rows and the bundles before it go, what follows stays', async () => {
    const cell = events();
    cell.onEvent({ kind: 'stdout', text: 'old\n' });
    cell.onEvent(image(await png()));
    cell.onEvent({ kind: 'clear_output' });
    cell.onEvent({ kind: 'stdout', text: 'new\n' });
    await cell.drain(true);
    const output = cell.buffer.snapshot();
    expect(rowsOf(output).map((r) => (r.kind === 'text' ? r.text : 'image'))).toEqual(['new']);
    expect(outputsOf(output)).toEqual([{ output_type: 'stream', name: 'stdout', text: ['new\n'] }]);
  });
});
