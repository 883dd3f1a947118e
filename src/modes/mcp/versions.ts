/**
 * What each MCP revision allows in what the server sends. A client validates results against the
 * revision it negotiated: a content type or field it does not know (a `resource_link` block for a
 * 2025-03-26 client) can make it reject the whole result. Revisions are dates, so they compare as
 * strings.
 */

/** What came in which revision (and, for batches, went again). */
const SINCE = {
  /** Tool annotations (readOnlyHint, ...), the `message` of a progress notification. */
  annotations: '2025-03-26',
  progressMessage: '2025-03-26',
  /** `structuredContent` in tool results and a tool's `outputSchema`. */
  structuredContent: '2025-06-18',
  /** `resource_link` content blocks. */
  resourceLink: '2025-06-18',
  /** `title` beside `name` (tools, resources, templates, the server's info). */
  title: '2025-06-18',
  /** Tool calls as tasks (tasks/get, tasks/result, tasks/cancel; a tool's `execution`). */
  tasks: '2025-11-25',
} as const;

export type Feature = keyof typeof SINCE;

/** Whether the negotiated revision has `feature`. Before initialize nothing is assumed new. */
export function supports(version: string | undefined, feature: Feature): boolean {
  return version !== undefined && version >= SINCE[feature];
}

/** JSON-RPC batches: added in 2025-03-26, removed in 2025-06-18. */
export function allowsBatches(version: string | undefined): boolean {
  return version === '2025-03-26';
}

/** The sentence a refused batch is answered with. */
export function batchRefusal(version: string | undefined): string {
  return version === undefined
    ? 'Invalid Request: a JSON-RPC batch before initialize (initialize is never part of a batch); send one message at a time'
    : `Invalid Request: JSON-RPC batches are not part of MCP ${version}, the revision this connection negotiated (only 2025-03-26 has them); send one message at a time`;
}

/** An object without its `title` when the revision does not know the field. */
export function withTitle<T extends { title?: string }>(value: T, version: string | undefined): T {
  if (supports(version, 'title') || value.title === undefined) return value;
  const { title: _, ...rest } = value;
  return rest as T;
}

/** The first revision of the era without initialize (`server/discover`, state behind handles). */
export const FIRST_MODERN_REVISION = '2026-07-28';
