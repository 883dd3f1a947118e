/**
 * Artifact files: where all of a cell's output goes once it outgrows what is kept in memory,
 * named by `artifact://<id>`, private to this user, removed after a day.
 */
import { randomUUID } from 'node:crypto';
import {
  closeSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Characters gathered before one write (one write per line would cost a syscall each). */
const BATCH_CHARS = 1 << 18;

/** Artifacts older than this are removed when a new one is written. */
const ARTIFACT_MAX_AGE_MS = 24 * 60 * 60 * 1000;

export const ARTIFACT_PREFIX = 'artifact://';

export function artifactDir(): string {
  const uid = typeof process.getuid === 'function' ? process.getuid() : 'user';
  const dir = join(tmpdir(), `omp-eval-artifacts-${uid}`);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = lstatSync(dir);
  if (!st.isDirectory() || (typeof process.getuid === 'function' && st.uid !== process.getuid())) {
    throw new Error(`${dir} is not a private directory of this user`);
  }
  return dir;
}

let swept = false;

/** Removes artifacts older than a day, once per process. */
function sweepArtifacts(dir: string) {
  if (swept) return;
  swept = true;
  const cutoff = Date.now() - ARTIFACT_MAX_AGE_MS;
  for (const name of readdirSync(dir)) {
    try {
      const file = join(dir, name);
      if (statSync(file).mtimeMs < cutoff) unlinkSync(file);
    } catch {
      // raced with another process
    }
  }
}

/** The file an `artifact://<id>` URI names. */
export function resolveArtifact(uri: string): string {
  const id = uri.startsWith(ARTIFACT_PREFIX) ? uri.slice(ARTIFACT_PREFIX.length) : uri;
  if (!/^[\w-]+$/.test(id)) throw new Error(`not an artifact id: ${uri}`);
  return join(artifactDir(), `${id}.txt`);
}

/** An artifact being written: appends are batched; a failing write ends it with `error`. */
export class ArtifactFile {
  private fd?: number;
  private pending: string[] = [];
  private pendingChars = 0;
  /** Why the artifact is incomplete, when it is. */
  error?: string;

  private constructor(
    readonly id: string,
    readonly path: string,
    fd: number,
  ) {
    this.fd = fd;
  }

  /** A new artifact, or the reason none could be made. */
  static create(): ArtifactFile | string {
    try {
      const dir = artifactDir();
      sweepArtifacts(dir);
      const id = randomUUID();
      const path = join(dir, `${id}.txt`);
      return new ArtifactFile(id, path, openSync(path, 'wx', 0o600));
    } catch (err) {
      return (err as Error).message;
    }
  }

  get uri(): string {
    return `${ARTIFACT_PREFIX}${this.id}`;
  }

  write(piece: string): void {
    if (this.fd === undefined) return;
    this.pending.push(piece);
    this.pendingChars += piece.length;
    if (this.pendingChars >= BATCH_CHARS) this.flush();
  }

  private flush() {
    const batch = this.pending.join('');
    this.pending = [];
    this.pendingChars = 0;
    if (this.fd === undefined || !batch) return;
    try {
      writeSync(this.fd, batch);
    } catch (err) {
      this.error = `the full output could not be saved: ${(err as Error).message}`;
      this.close();
    }
  }

  /** Writes what is pending and closes the file. Idempotent. */
  close(): void {
    if (this.pending.length) this.flush();
    if (this.fd === undefined) return;
    try {
      closeSync(this.fd);
    } catch {
      // nothing left to do
    }
    this.fd = undefined;
  }
}
