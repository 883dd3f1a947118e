/**
 * Images over a call's inline limits as `artifact://` resources (issue 42), against the real
 * `omp-eval mcp` and the SDK's client: the result names them, resources/list lists them as
 * images, and resources/read gives each back whole.
 */
import type { BlobResourceContents } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, describe, expect, it } from 'vitest';
import { evalCell, startStdio, stopAll, textOf } from '../helpers/mcp.js';

afterAll(stopAll);

/** A 1×1 PNG. */
const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

describe('images past the per-call count', () => {
  it('are resources the client can list and read', async () => {
    const { client } = await startStdio();
    const r = await evalCell(client, `for i in range(10):\n    display({"image/png": "${PNG}"}, raw=True)`);
    expect(r.isError).toBeFalsy();
    expect(r.content.filter((c) => c.type === 'image')).toHaveLength(8);
    // (the engine keeps 8 images a cell: the rest are named as resources, with their files)
    expect(textOf(r)).toMatch(/2 images \(\d+ kB\) left out of the result.*; saved as artifact:\/\//);
    const uris = [...new Set(textOf(r).match(/artifact:\/\/[\w-]+/g))];
    expect(uris).toHaveLength(2);
    const { resources } = await client.listResources();
    for (const uri of uris) expect(resources.find((x) => x.uri === uri)?.mimeType).toBe('image/png');
    const read = await client.readResource({ uri: uris[0] as string });
    expect((read.contents[0] as BlobResourceContents).blob).toBe(PNG);
  });
});
