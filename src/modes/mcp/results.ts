/**
 * An eval call's result as MCP content: the agent text `omp-eval tool` gives, one `image` block per
 * image (scaled to fit, within a per-call budget), a `resource_link` per cut output, and the
 * per-cell results as `structuredContent` (the eval tool's outputSchema).
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { CellResult, EvalToolResult, StatusEvent } from './engine.js';
import { type FittedImage, fitImage, MAX_IMAGES, MAX_TOTAL_BYTES } from './images.js';

type Content = CallToolResult['content'][number];

/** Status events kept per cell in structured content (a loop of log() calls can send thousands). */
const MAX_STATUS_EVENTS = 50;

interface ImageInfo {
  mimeType: string;
  width?: number;
  height?: number;
  attached: boolean;
  note?: string;
}

/** Fits every image of the call into the budget; returns the blocks and what became of each. */
async function imageBlocks(
  cells: CellResult[],
): Promise<{ blocks: Content[]; infos: ImageInfo[][]; lines: string[] }> {
  const blocks: Content[] = [];
  const lines: string[] = [];
  let bytes = 0;
  const infos: ImageInfo[][] = [];
  for (const cell of cells) {
    const mine: ImageInfo[] = [];
    for (const [i, image] of cell.images.entries()) {
      const label = `image ${i + 1} of cell ${cell.index + 1}`;
      const base = {
        mimeType: image.mime,
        ...(image.width ? { width: image.width } : {}),
        ...(image.height ? { height: image.height } : {}),
      };
      if (blocks.length >= MAX_IMAGES) {
        mine.push({ ...base, attached: false, note: `not attached: at most ${MAX_IMAGES} images per call` });
        lines.push(`[${label} not attached: at most ${MAX_IMAGES} images per call]`);
        continue;
      }
      let fitted: FittedImage;
      try {
        fitted = await fitImage(image);
      } catch (err) {
        mine.push({ ...base, attached: false, note: `could not be prepared: ${(err as Error).message}` });
        lines.push(`[${label} not attached: it could not be prepared (${(err as Error).message})]`);
        continue;
      }
      const size = Math.floor((fitted.data.length * 3) / 4);
      if (bytes + size > MAX_TOTAL_BYTES) {
        mine.push({ ...base, attached: false, note: 'not attached: the images of this call are over 4 MiB' });
        lines.push(`[${label} not attached: the images of this call are over 4 MiB]`);
        continue;
      }
      bytes += size;
      blocks.push({ type: 'image', data: fitted.data, mimeType: fitted.mimeType });
      mine.push({
        mimeType: fitted.mimeType,
        ...(fitted.width ? { width: fitted.width } : {}),
        ...(fitted.height ? { height: fitted.height } : {}),
        attached: true,
        ...(fitted.note ? { note: fitted.note } : {}),
      });
      if (fitted.note) lines.push(`[${label}: ${fitted.note}]`);
    }
    infos.push(mine);
  }
  return { blocks, infos, lines };
}

/** Status events without their bulky fields, as a client can show them. */
function compactStatus(events: StatusEvent[]): StatusEvent[] {
  return events.slice(-MAX_STATUS_EVENTS);
}

function structuredCell(cell: CellResult, images: ImageInfo[]) {
  const t = cell.truncation;
  return {
    index: cell.index,
    ...(cell.title ? { title: cell.title } : {}),
    language: cell.language,
    status: cell.status,
    exitCode: cell.exitCode,
    ...(cell.executionCount !== undefined ? { executionCount: cell.executionCount } : {}),
    durationMs: Math.round(cell.durationMs * 1000) / 1000,
    timedOut: cell.timedOut,
    kernelKilled: cell.kernelKilled,
    retried: cell.retried,
    text: cell.text,
    ...(t
      ? {
          fullOutput: {
            totalChars: t.totalChars,
            totalLines: t.totalLines,
            ...(t.artifact ? { uri: t.artifact } : {}),
            ...(t.artifactPath ? { path: t.artifactPath } : {}),
            ...(t.artifactError ? { error: t.artifactError } : {}),
          },
        }
      : {}),
    images,
    ...(cell.error ? { error: { ename: cell.error.ename, evalue: cell.error.evalue } } : {}),
    notices: cell.notices,
    statusEvents: compactStatus(cell.statusEvents),
  };
}

/** Lines naming the file behind each artifact, and a link block for each. */
function artifactParts(cells: CellResult[]): { lines: string[]; links: Content[] } {
  const lines: string[] = [];
  const links: Content[] = [];
  for (const cell of cells) {
    const t = cell.truncation;
    if (!t?.artifact) continue;
    lines.push(
      `[full output of cell ${cell.index + 1}: resource ${t.artifact}${t.artifactPath ? `, file ${t.artifactPath}` : ''} (${t.totalLines} lines); read it with resources/read, or in a cell with read(path, offset, limit)]`,
    );
    links.push({
      type: 'resource_link',
      uri: t.artifact,
      name: `cell ${cell.index + 1} output`,
      mimeType: 'text/plain',
      description: `All ${t.totalChars} characters (${t.totalLines} lines) of the output of cell ${cell.index + 1}`,
    });
  }
  return { lines, links };
}

/** The tool result of an eval call. `notices` go first: news from before this call. */
export async function evalCallResult(
  result: EvalToolResult,
  session: string,
  notices: string[],
): Promise<CallToolResult> {
  const images = await imageBlocks(result.cells);
  const artifacts = artifactParts(result.cells);
  const text = [...notices.map((n) => `[${n}]`), result.text, ...images.lines, ...artifacts.lines]
    .filter(Boolean)
    .join('\n');
  return {
    content: [{ type: 'text', text }, ...images.blocks, ...artifacts.links],
    structuredContent: {
      session,
      isError: result.isError,
      ...(notices.length ? { notices } : {}),
      cells: result.cells.map((cell, i) => structuredCell(cell, images.infos[i] ?? [])),
    },
    isError: result.isError,
  };
}

/** A result that is only a message: invalid input, or a problem outside the cells. */
export function errorResult(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}
