/**
 * Artifacts as MCP resources: `artifact://<id>` is the full output of a cell whose output was cut
 * (a file in the private artifact directory), or an image the result could not carry. A read
 * returns at most READ_LIMIT bytes, a text cut at a line with a note that names the file for the
 * rest; an image whole (as a blob) or not at all.
 *
 * The server reads on the host, outside any sandbox, what a cell may have touched: it serves only
 * files this process wrote, opened without following a link and checked to be the very file it
 * wrote (a cell that can write to the folder could have put a link to a secret in its place).
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import {
  type BlobResourceContents,
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type Resource,
  type TextResourceContents,
} from '@modelcontextprotocol/sdk/types.js';
import { resolveArtifact, writtenArtifact } from './engine.js';
import type { VersionedServer } from './versionedServer.js';
import { withTitle } from './versions.js';

const READ_LIMIT = 8 * 1024 * 1024;
/** Resources listed (the newest of this connection). */
const LIST_LIMIT = 100;

/** The image type of an artifact's file, by its name; none for a text. */
function imageType(path: string): string | undefined {
  if (path.endsWith('.png')) return 'image/png';
  if (path.endsWith('.jpg') || path.endsWith('.jpeg')) return 'image/jpeg';
  return undefined;
}

function artifactType(uri: string): string | undefined {
  try {
    return imageType(resolveArtifact(uri));
  } catch {
    return undefined;
  }
}

export function listArtifacts(uris: readonly string[]): Resource[] {
  return uris
    .slice(-LIST_LIMIT)
    .reverse()
    .map((uri) => {
      const image = artifactType(uri);
      return {
        uri,
        name: uri.slice('artifact://'.length),
        title: image ? 'An image of a cell' : 'Full output of a cell',
        mimeType: image ?? 'text/plain',
      };
    });
}

export function readArtifact(uri: string, limit = READ_LIMIT): TextResourceContents | BlobResourceContents {
  let path: string;
  try {
    if (!uri.startsWith('artifact://')) throw new Error('not an artifact');
    path = resolveArtifact(uri);
  } catch {
    throw new McpError(
      ErrorCode.InvalidParams,
      `Unknown resource ${uri}: this server has artifact://<id> resources only`,
    );
  }
  const notFound = (why: string) => new McpError(-32002, `Resource not found: ${uri} (${why})`);
  const wrote = writtenArtifact(path);
  if (!wrote) throw notFound('this server did not write it: it serves the artifacts of its own cells only');
  let fd: number;
  try {
    // O_NOFOLLOW: a link in the artifact's place is refused, not followed; O_NONBLOCK: a FIFO cannot hang the read.
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ELOOP')
      throw notFound(`${path} is now a symbolic link, not the file this server wrote: it is not followed`);
    throw notFound(`no file ${path}; artifacts are removed a day after they were written`);
  }
  try {
    const st = fstatSync(fd, { bigint: true });
    if (!st.isFile() || st.dev !== wrote.dev || st.ino !== wrote.ino)
      throw notFound(`${path} was replaced after this server wrote it: the file there now is not read`);
    const size = Number(st.size);
    const image = imageType(path);
    if (image && size > limit)
      throw notFound(`the image is ${size} bytes, over the ${limit} a read returns: it is the file ${path}`);
    const buffer = Buffer.alloc(Math.min(size, limit));
    const read = readSync(fd, buffer, 0, buffer.length, 0);
    let bytes = buffer.subarray(0, read);
    if (image) return { uri, mimeType: image, blob: bytes.toString('base64') };
    if (size <= limit) return { uri, mimeType: 'text/plain', text: bytes.toString('utf8') };
    // Cut at the last full line, so no UTF-8 sequence is split.
    const newline = bytes.lastIndexOf(0x0a);
    if (newline > 0) bytes = bytes.subarray(0, newline + 1);
    const mib = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MiB`;
    const note = `[resource cut: the first ${mib(bytes.length)} of ${mib(size)} are shown; the whole output is the file ${path}, which a cell can read with read(path, offset, limit)]\n`;
    return { uri, mimeType: 'text/plain', text: `${bytes.toString('utf8')}${note}` };
  } finally {
    closeSync(fd);
  }
}

/** Lists and reads `artifacts` (the files this connection's results named) as the server's resources. */
export function serveArtifacts(server: VersionedServer, artifacts: readonly string[]): void {
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
    resourceTemplates: [
      withTitle(
        {
          uriTemplate: 'artifact://{id}',
          name: 'artifact',
          title: 'Full output of a cell',
          description: 'All of the output of a cell whose output was cut in an eval result.',
          mimeType: 'text/plain',
        },
        server.protocolVersion,
      ),
    ],
  }));
  server.setRequestHandler(ListResourcesRequestSchema, () => ({
    resources: listArtifacts(artifacts).map((r) => withTitle(r, server.protocolVersion)),
  }));
  server.setRequestHandler(ReadResourceRequestSchema, (request) => ({
    contents: [readArtifact(request.params.uri)],
  }));
}
