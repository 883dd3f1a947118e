/**
 * An eval call's result as MCP content, in the revision the client negotiated: the agent text
 * `omp-eval tool` gives (one budget for all of it), one `image` block per image (scaled to fit,
 * within a per-call budget), and from 2025-06-18 on a `resource_link` per cut output and the
 * per-cell results as `structuredContent` (the eval tool's outputSchema).
 *
 * Clients give the model one of the two: Claude Code, Codex and VS Code send `structuredContent`
 * alone when it is there (and Claude Code the text alone for an error result), most others the
 * text. So each is whole by itself, within the same budget: the structured part has each cell's
 * part of the text (its output, notices and the marker naming a cut output's artifact), the
 * verdict and the notes; nothing in it is said twice.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import {
  type CellResult,
  composeToolText,
  type EvalToolResult,
  oneLine,
  plainText,
  resolveArtifact,
  TOOL_TEXT_CHARS,
  type ToolText,
  writtenArtifact,
} from './engine.js';
import { type FittedImage, fitImage, MAX_IMAGES, MAX_TOTAL_BYTES, saveImage } from './images.js';
import { supports } from './versions.js';

type Content = CallToolResult['content'][number];

/** The characters of the structured part (as JSON), and of its cell entries without their texts. */
const STRUCTURED_CHARS = 100_000;
const STRUCTURED_META_CHARS = 35_000;

interface ImageInfo {
  mimeType: string;
  width?: number;
  height?: number;
  attached: boolean;
  note?: string;
  /** Not attached: the image as a resource (resources/read). */
  uri?: string;
}

/**
 * Fits every image of the call into the budget; returns the blocks, what became of each, and the
 * `artifact://` resources that keep the images left out (in `artifactDir`).
 */
async function imageBlocks(
  cells: CellResult[],
  artifactDir?: string,
): Promise<{ blocks: Content[]; infos: ImageInfo[][]; lines: string[]; saved: string[] }> {
  const blocks: Content[] = [];
  const lines: string[] = [];
  /** Images past the count or the bytes, by cell number: one line says it for all of them. */
  const over: Record<'count' | 'bytes', number[]> = { count: [], bytes: [] };
  const saved: string[] = [];
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
      /** Left out: kept as a resource, named in its info (and the line that says why). */
      const leftOut = (note: string): { uri?: string; note: string } => {
        const kept = saveImage(image, artifactDir);
        if ('error' in kept) return { note: `${note}; not saved: ${oneLine(kept.error)}` };
        saved.push(kept.uri);
        return { uri: kept.uri, note: `${note}; it is the resource ${kept.uri}` };
      };
      if (blocks.length >= MAX_IMAGES) {
        mine.push({
          ...base,
          attached: false,
          ...leftOut(`not attached: at most ${MAX_IMAGES} images per call`),
        });
        over.count.push(cell.index + 1);
        continue;
      }
      let fitted: FittedImage;
      try {
        fitted = await fitImage(image);
      } catch (err) {
        const why = oneLine((err as Error).message);
        const kept = leftOut(`could not be prepared: ${why}`);
        mine.push({ ...base, attached: false, ...kept });
        lines.push(
          `[${label} not attached: it could not be prepared (${why})${kept.uri ? `; it is ${kept.uri}` : ''}]`,
        );
        continue;
      }
      const size = Math.floor((fitted.data.length * 3) / 4);
      if (bytes + size > MAX_TOTAL_BYTES) {
        mine.push({
          ...base,
          attached: false,
          ...leftOut('not attached: the images of this call are over 4 MiB'),
        });
        over.bytes.push(cell.index + 1);
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
  const cellList = (numbers: number[]) => {
    const unique = [...new Set(numbers)];
    const shown = unique.slice(0, 10).join(', ');
    return unique.length > 10 ? `${shown} and ${unique.length - 10} more` : shown;
  };
  const images = (n: number) => `${n} image${n === 1 ? '' : 's'}`;
  if (over.bytes.length)
    lines.push(
      `[${images(over.bytes.length)} (of cell ${cellList(over.bytes)}) not attached: the images of this call are over 4 MiB]`,
    );
  if (over.count.length)
    lines.push(
      `[${images(over.count.length)} (of cell ${cellList(over.count)}) not attached: at most ${MAX_IMAGES} images per call]`,
    );
  if (saved.length) lines.push(`[${savedLine(saved)}]`);
  return { blocks, infos, lines, saved };
}

/** Where the images left out are: resources to read, listed up to 10. */
function savedLine(uris: string[]): string {
  const more = uris.length > 10 ? ` and ${uris.length - 10} more (resources/list)` : '';
  return `the images not attached are resources: read them with resources/read: ${uris.slice(0, 10).join(', ')}${more}`;
}

/** A cell in the structured part: what a client or model needs beyond its part of the text. */
function structuredCell(cell: CellResult, text: string, images: ImageInfo[]) {
  const t = cell.truncation;
  const ran = cell.status !== 'skipped';
  return {
    index: cell.index,
    ...(cell.title ? { title: oneLine(cell.title) } : {}),
    language: cell.language,
    status: cell.status,
    ...(ran ? { exitCode: cell.exitCode } : {}),
    ...(cell.executionCount !== undefined ? { executionCount: cell.executionCount } : {}),
    ...(ran ? { durationMs: Math.round(cell.durationMs * 10) / 10 } : {}),
    ...(cell.timedOut ? { timedOut: true } : {}),
    ...(cell.kernelKilled ? { kernelKilled: true } : {}),
    ...(cell.retried ? { retried: true } : {}),
    ...(text ? { text } : {}),
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
    ...(images.length ? { images } : {}),
    ...(cell.error ? { error: { ename: cell.error.ename, evalue: plainText(cell.error.evalue) } } : {}),
  };
}

type StructuredCell = ReturnType<typeof structuredCell>;

/**
 * Which items (of these lengths) are kept within the budget: all of them when they fit, else
 * those from the start (two fifths of it) and from the end (the rest), as the text's own clamp
 * keeps its head and tail.
 */
function keptFromEnds(lengths: number[], budget: number): boolean[] {
  if (lengths.reduce((sum, n) => sum + n, 0) <= budget) return lengths.map(() => true);
  const kept = lengths.map(() => false);
  let room = budget * 0.4;
  for (let i = 0; i < lengths.length && (lengths[i] as number) <= room; i++) {
    kept[i] = true;
    room -= lengths[i] as number;
  }
  room += budget * 0.6;
  for (let i = lengths.length - 1; i >= 0 && !kept[i] && (lengths[i] as number) <= room; i--) {
    kept[i] = true;
    room -= lengths[i] as number;
  }
  return kept;
}

/**
 * The structured part, within STRUCTURED_CHARS: the cells' entries (left out from the middle past
 * STRUCTURED_META_CHARS: hundreds of cells), then their texts (left out from the middle past what
 * remains, as the text's own clamp cut it).
 */
function structuredPart(
  result: EvalToolResult,
  composed: ToolText,
  images: ImageInfo[][],
  session: string,
  notices: string[],
  notes: string[],
) {
  const entries = result.cells.map((cell, i) => structuredCell(cell, '', images[i] ?? []));
  const keepEntry = keptFromEnds(
    entries.map((e) => JSON.stringify(e).length + 1),
    STRUCTURED_META_CHARS,
  );
  const metaChars = entries.reduce((sum, e, i) => sum + (keepEntry[i] ? JSON.stringify(e).length + 1 : 0), 0);
  const top = JSON.stringify({ notices, verdict: composed.verdict, notes }).length + 1_000;
  const textChars = Math.min(TOOL_TEXT_CHARS, STRUCTURED_CHARS - metaChars - top);
  // (as JSON: a newline is two characters there)
  const keepText = keptFromEnds(
    composed.parts.map((p, i) => (keepEntry[i] ? JSON.stringify(p).length + 10 : 0)),
    textChars,
  );
  const cells: StructuredCell[] = [];
  for (const [i, cell] of result.cells.entries())
    if (keepEntry[i])
      cells.push(structuredCell(cell, keepText[i] ? (composed.parts[i] ?? '') : '', images[i] ?? []));
  const said: string[] = [];
  const leftOut = composed.parts.filter((part, i) => part && keepEntry[i] && !keepText[i]).length;
  const whole = composed.truncation?.artifact
    ? ` All of the text is ${composed.truncation.artifact}${composed.truncation.artifactPath ? ` (${composed.truncation.artifactPath})` : ''}.`
    : '';
  if (leftOut)
    said.push(
      `The texts of ${leftOut} cells in the middle are left out here, to keep this result within its budget.${whole}`,
    );
  const first = keepEntry.indexOf(false);
  if (first !== -1)
    said.push(
      `Cells ${first + 1}-${keepEntry.lastIndexOf(false) + 1} are left out of this list, to keep it within its budget; the verdict says which cell did not end ok.${whole}`,
    );
  const allNotes = [...said, ...notes];
  return {
    session,
    isError: result.isError,
    ...(notices.length ? { notices: notices.map(plainText) } : {}),
    cells,
    ...(composed.verdict ? { verdict: composed.verdict } : {}),
    ...(allNotes.length ? { notes: allNotes } : {}),
  };
}

/** A link block for each cut output (and for the whole text, when it was cut). */
function resourceLinks(cells: CellResult[], whole: ToolText): Content[] {
  const links: Content[] = [];
  for (const cell of cells) {
    const t = cell.truncation;
    if (!t?.artifact) continue;
    links.push({
      type: 'resource_link',
      uri: t.artifact,
      name: `cell ${cell.index + 1} output`,
      mimeType: 'text/plain',
      description: `All ${t.totalChars} characters (${t.totalLines} lines) of the output of cell ${cell.index + 1}`,
    });
  }
  const t = whole.truncation;
  if (t?.artifact)
    links.push({
      type: 'resource_link',
      uri: t.artifact,
      name: 'result text',
      mimeType: 'text/plain',
      description: `All ${t.totalChars} characters of this result's text`,
    });
  return links;
}

/** An artifact this process wrote, which resources/read serves. */
function servedArtifact(uri: string): boolean {
  try {
    return writtenArtifact(resolveArtifact(uri)) !== undefined;
  } catch {
    return false;
  }
}

/** How to read a cut output: said once per result. */
const READ_HINT =
  '[A cut output is whole in the artifact its marker names: read it with resources/read, or in a cell with read("artifact://<id>", offset, limit).]';

export interface EvalCallOptions {
  /** The MCP revision the client negotiated. */
  version: string | undefined;
  /** Where a text over its budget keeps all of itself (the session's artifacts folder). */
  artifactDir?: string;
}

/**
 * The tool result of an eval call, and the artifacts it names. `notices` go first: news from
 * before this call.
 */
export async function evalCallResult(
  result: EvalToolResult,
  session: string,
  notices: string[],
  options: EvalCallOptions,
): Promise<{ result: CallToolResult; artifacts: string[] }> {
  const images = await imageBlocks(result.cells, options.artifactDir);
  const cut = result.cells.some((c) => c.truncation?.artifact);
  const composed = composeToolText(result.cells, {
    notices,
    trailer: [...images.lines, ...(cut ? [READ_HINT] : [])],
    cutOnce: true,
    ...(options.artifactDir ? { artifactDir: options.artifactDir } : {}),
  });
  const artifacts = [
    ...result.cells.flatMap((c) => (c.truncation?.artifact ? [c.truncation.artifact] : [])),
    ...(composed.truncation?.artifact ? [composed.truncation.artifact] : []),
    ...images.saved,
  ];
  // Every other artifact the text names that this server wrote (images and JSON the engine left
  // out of a cell's result) is a resource too: listed, as the ones above.
  for (const [uri] of composed.text.matchAll(/artifact:\/\/[\w-]+/g))
    if (!artifacts.includes(uri) && servedArtifact(uri)) artifacts.push(uri);
  const structured = supports(options.version, 'structuredContent');
  const links = supports(options.version, 'resourceLink') ? resourceLinks(result.cells, composed) : [];
  const notes = [...images.lines, ...(cut ? [READ_HINT] : [])].map((line) => line.slice(1, -1));
  return {
    result: {
      content: [{ type: 'text', text: composed.text }, ...images.blocks, ...links],
      ...(structured
        ? {
            structuredContent: structuredPart(result, composed, images.infos, session, notices, notes),
          }
        : {}),
      isError: result.isError,
    },
    artifacts,
  };
}

/** A result that is only a message: invalid input, or a problem outside the cells. */
export function errorResult(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}
