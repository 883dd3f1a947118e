/**
 * resources/read runs on the host, outside the sandbox: an artifact file that was replaced after
 * the server wrote it (a symbolic link or a hard link to a secret, as a cell that can write to the
 * artifacts folder could leave) is refused, never read. Against the real server over stdio.
 */
import { linkSync, mkdtempSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { evalCell, startStdio, stopAll } from '../helpers/mcp.js';

afterAll(stopAll);

const SECRET = 'TOP-SECRET-c0ffee';

/** A cell whose output is cut: its full output is an artifact; its URI and file. */
async function artifactOf(client: Client): Promise<{ uri: string; path: string }> {
  const result = await evalCell(client, 'for i in range(5000): print("line", i, "x" * 40)');
  const cells = (result.structuredContent as { cells: { fullOutput?: { uri: string; path: string } }[] })
    .cells;
  const full = cells[0]?.fullOutput;
  if (!full) throw new Error('the output was not cut');
  return full;
}

/** The error resources/read gives for `uri` (it fails the test if the read succeeds). */
async function readError(client: Client, uri: string): Promise<string> {
  const read = await client.readResource({ uri }).then(
    (r) => JSON.stringify(r),
    (err: Error) => err,
  );
  if (typeof read === 'string') throw new Error(`the read succeeded: ${read.slice(0, 200)}`);
  return read.message;
}

describe('resources/read of an artifact', () => {
  it('refuses a symbolic link or a hard link to a secret in an artifact’s place, and a file it never wrote', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'omp-secret-'));
    const secret = join(dir, 'secret.txt');
    writeFileSync(secret, `${SECRET}\n`, { mode: 0o600 });
    const placed: string[] = [];
    onTestFinished(() => {
      for (const path of placed) rmSync(path, { force: true });
      rmSync(dir, { recursive: true, force: true });
    });
    const { client } = await startStdio();

    const linked = await artifactOf(client);
    const own = await client.readResource({ uri: linked.uri });
    expect((own.contents[0] as { text: string }).text).toMatch(/^line 0 x+\n/); // its own file, read
    unlinkSync(linked.path);
    symlinkSync(secret, linked.path);
    placed.push(linked.path);
    const viaSymlink = await readError(client, linked.uri);
    expect(viaSymlink).toMatch(/Resource not found: .* is now a symbolic link, .* it is not followed/);
    expect(viaSymlink).not.toContain(SECRET);

    // A hard link is a regular file, but not the one the server wrote.
    const hard = await artifactOf(client);
    unlinkSync(hard.path);
    linkSync(secret, hard.path);
    placed.push(hard.path);
    const viaHardLink = await readError(client, hard.uri);
    expect(viaHardLink).toMatch(/Resource not found: .* was replaced after this server wrote it/);
    expect(viaHardLink).not.toContain(SECRET);

    // A file put into the folder under a new id: the server never wrote it.
    const forged = join(dirname(hard.path), `forged-${process.pid}.txt`);
    writeFileSync(forged, `${SECRET}\n`);
    placed.push(forged);
    const notWritten = await readError(client, `artifact://forged-${process.pid}`);
    expect(notWritten).toMatch(/Resource not found: .*\(this server did not write it/);
    expect(notWritten).not.toContain(SECRET);
  });
});
