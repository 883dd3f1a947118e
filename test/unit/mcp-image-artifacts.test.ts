/**
 * Images over a result's inline limits (issue 42): the ones left out become `artifact://`
 * resources, as a cut output does, named in the text and in the structured part, listed and read
 * (as a blob) through the resources the server serves; no longer only a sentence.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BlobResourceContents, CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import type { EvalToolResult, ImageOutput } from '../../src/eval/index.js';
import { listArtifacts, readArtifact } from '../../src/modes/mcp/artifacts.js';
import { MAX_IMAGES } from '../../src/modes/mcp/images.js';
import { evalCallResult } from '../../src/modes/mcp/results.js';
import { cellResult } from '../helpers/results.js';

const artifactDir = mkdtempSync(join(tmpdir(), 'omp-mcp-images-'));
const image = (n: number): ImageOutput => ({
  mime: 'image/png',
  data: Buffer.from(`not really a png ${n}`).toString('base64'),
  width: 10,
  height: 10,
});

describe('images over the per-call count', () => {
  it('are artifact:// resources: named in the text and the structured part, listed, read whole', async () => {
    const images = Array.from({ length: MAX_IMAGES + 2 }, (_, i) => image(i));
    const result: EvalToolResult = {
      text: '',
      isError: false,
      cells: [cellResult({ index: 0, text: 'ok\n', images })],
    };
    const { result: r, artifacts } = await evalCallResult(result, 'default', [], {
      version: '2025-11-25',
      artifactDir,
    });
    expect(r.content.filter((c) => c.type === 'image')).toHaveLength(MAX_IMAGES);
    const infos = (r.structuredContent as { cells: { images: { attached: boolean; uri?: string }[] }[] })
      .cells[0]?.images;
    const left = infos?.filter((i) => !i.attached) ?? [];
    expect(left).toHaveLength(2);
    const uris = left.map((i) => i.uri as string);
    for (const uri of uris) expect(uri).toMatch(/^artifact:\/\/[\w-]+$/);
    expect(artifacts).toEqual(expect.arrayContaining(uris));
    const text = (r.content[0] as { text: string }).text;
    expect(text).toContain(
      `the images not attached are resources: read them with resources/read: ${uris.join(', ')}`,
    );
    expect(text).not.toMatch(/\/tmp\//);

    const listed = listArtifacts(uris);
    expect(listed.map((l) => l.mimeType)).toEqual(['image/png', 'image/png']);
    const read = readArtifact(uris[1] as string) as BlobResourceContents;
    expect(read).toEqual({ uri: uris[1], mimeType: 'image/png', blob: images[MAX_IMAGES + 1]?.data });
  });

  it('a text artifact still reads as text', async () => {
    const result: EvalToolResult = {
      text: '',
      isError: false,
      cells: [cellResult({ index: 0, text: 'ok\n', images: [image(1)] })],
    };
    const { result: r } = await evalCallResult(result, 'default', [], { version: '2025-11-25', artifactDir });
    expect((r as CallToolResult).content.filter((c) => c.type === 'image')).toHaveLength(1);
    expect(JSON.stringify(r.structuredContent)).not.toContain('artifact://');
  });
});
