/**
 * Artifact files: where all of a cell's output goes once it outgrows what is kept in memory,
 * named by `artifact://<id>` and by their path, private to this user. The folder is bounded: a
 * file stops growing at its cap, the oldest files are removed when the folder outgrows its
 * total, and files older than a day are removed.
 */
import {
  closeSync,
  fstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  rmdirSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { nodeCrypto } from '../nodeCrypto.js';
import { joinSmall } from './joinSmall.js';
import { isPrivateDir, privateDir } from './privateDir.js';

/** Characters gathered before one write (one write per line would cost a syscall each). */
const BATCH_CHARS = 1 << 18;
/** A piece at least this long is written by itself, not joined with others first. */
const DIRECT_CHARS = 1 << 14;

/** Artifacts older than this are removed when a new one is written. */
const ARTIFACT_MAX_AGE_MS = 24 * 60 * 60 * 1000;

const ARTIFACT_PREFIX = 'artifact://';

export interface ArtifactLimits {
  /** Bytes one artifact may hold; what comes after is not saved (and the artifact says so). */
  maxFileBytes: number;
  /** Bytes the folder may hold; the oldest files are removed to make room for a new one. */
  maxTotalBytes: number;
}

export const DEFAULT_ARTIFACT_LIMITS: ArtifactLimits = {
  maxFileBytes: 100 * 1000 * 1000,
  maxTotalBytes: 500 * 1000 * 1000,
};

let limits: ArtifactLimits = { ...DEFAULT_ARTIFACT_LIMITS };

/** Sets the caps of the artifacts folder (from the settings), for this process. */
export function configureArtifacts(next: Partial<ArtifactLimits>): void {
  limits = { ...limits, ...next };
}

/** A size for a notice: in MB, in kB under a tenth of one (never "0.0 MB" for what is there). */
export const megabytes = (bytes: number) =>
  bytes < 1e5 ? `${Math.max(1, Math.round(bytes / 1e3))} kB` : `${(bytes / 1e6).toFixed(1)} MB`;

const dirs = new Map<string, string>();

/**
 * `<tmp>/omp-eval-artifacts-<uid>`, or a private fallback beside it when another user holds that
 * name (the same fallback on every run, so names from one run can be read in the next).
 */
export function artifactDir(scope?: string): string {
  const base = tmpdir();
  let dir = dirs.get(base);
  if (!dir) {
    dir = privateDir(base, 'omp-eval-artifacts');
    dirs.set(base, dir);
  }
  return scope ? scopeDir(dir, scope) : dir;
}

/**
 * A folder of the artifacts folder for one scope (an executor: a notebook, a command, one MCP
 * session). A sandboxed kernel sees its scope's folder only: the others' outputs are hidden.
 */
function scopeDir(root: string, scope: string): string {
  if (!/^[\w-]+$/.test(scope)) throw new Error(`not an artifact scope: ${scope}`);
  const dir = join(root, scope);
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch {
    // there already: checked below
  }
  if (!isPrivateDir(dir)) throw new Error(`${dir} is not a private directory of this user`);
  return dir;
}

const swept = new Set<string>();
/** Artifacts written to this recently are never removed to make room (ms). */
const ACTIVE_MS = 60_000;

/** The files under `dir` and its scope folders (one level), with their sizes and times. */
function artifactFiles(dir: string, depth = 0): { path: string; size: number; mtime: number }[] {
  const files: { path: string; size: number; mtime: number }[] = [];
  for (const name of readdirSync(dir)) {
    try {
      const path = join(dir, name);
      const st = statSync(path);
      if (st.isFile()) files.push({ path, size: st.size, mtime: st.mtimeMs });
      else if (st.isDirectory() && depth === 0) {
        const inside = artifactFiles(path, 1);
        if (!inside.length && Date.now() - st.mtimeMs > ARTIFACT_MAX_AGE_MS) rmdirSync(path);
        files.push(...inside);
      }
    } catch {
      // raced with another process
    }
  }
  return files;
}

/** Removes artifacts older than a day (once per process), then the oldest until a new one fits. */
function sweepArtifacts(dir: string) {
  const files = artifactFiles(dir);
  const cutoff = Date.now() - ARTIFACT_MAX_AGE_MS;
  const first = !swept.has(dir);
  swept.add(dir);
  let total = files.reduce((sum, f) => sum + f.size, 0);
  const room = Math.max(0, limits.maxTotalBytes - limits.maxFileBytes);
  const active = Date.now() - ACTIVE_MS;
  for (const file of files.sort((a, b) => a.mtime - b.mtime)) {
    if (!(first && file.mtime < cutoff) && total <= room) break;
    // A file written to within the last minute may be another process's cell still running, or
    // a result its caller is about to read: the folder stays over its cap rather than lose it.
    if (file.mtime > active) continue;
    try {
      unlinkSync(file.path);
      total -= file.size;
    } catch {
      // raced with another process
    }
  }
}

/** A file as the file system knows it, whatever its path: device and inode. */
export interface FileIdentity {
  dev: bigint;
  ino: bigint;
}

/**
 * The artifacts this process wrote, by path (the newest WRITTEN_LIMIT). A reader that serves them
 * outside a cell (MCP's resources/read) checks that it opened this very file: a cell that can write
 * to the folder may have put a link to another file (a secret) in its place.
 */
const written = new Map<string, FileIdentity>();
/** The same files by id (`<id>` of `<id>.txt`, `<id>.png`): an artifact's file is found from its id. */
const writtenById = new Map<string, string>();
const idOf = (path: string) => basename(path).replace(/\.[^.]*$/, '');
const WRITTEN_LIMIT = 10_000;

function rememberWritten(path: string, fd: number): void {
  const { dev, ino } = fstatSync(fd, { bigint: true });
  written.set(path, { dev, ino });
  writtenById.set(idOf(path), path);
  if (written.size > WRITTEN_LIMIT) {
    const oldest = written.keys().next().value as string;
    written.delete(oldest);
    writtenById.delete(idOf(oldest));
  }
}

/** The file this process wrote at `path` (an artifact), if it wrote one there. */
export function writtenArtifact(path: string): FileIdentity | undefined {
  return written.get(path);
}

/** The file an `artifact://<id>` URI names. */
export function resolveArtifact(uri: string): string {
  const id = uri.startsWith(ARTIFACT_PREFIX) ? uri.slice(ARTIFACT_PREFIX.length) : uri;
  if (!/^[\w-]+$/.test(id)) throw new Error(`not an artifact id: ${uri}`);
  return writtenById.get(id) ?? join(artifactDir(), `${id}.txt`);
}

/** An artifact being written: appends are batched; a failing write or the cap ends it with `error`. */
export class ArtifactFile {
  private fd?: number;
  private pending: string[] = [];
  private pendingChars = 0;
  private bytes = 0;
  /** Characters saved so far. */
  savedChars = 0;
  /** Why the artifact is incomplete, when it is. */
  error?: string;

  private constructor(
    readonly id: string,
    readonly path: string,
    fd: number,
    private readonly maxBytes: number,
  ) {
    this.fd = fd;
  }

  /** A new artifact (`<id>.<ext>`), or the reason none could be made. */
  /**
   * Tidies the artifacts' folder now (old artifacts, the oldest over the cap), so that the first
   * artifact a long-lived front end writes does not wait for it: removing large files takes time.
   */
  static tidy(): void {
    try {
      sweepArtifacts(artifactDir());
    } catch {
      // the next create() tries again, and reports what fails
    }
  }

  /** A new artifact in `dir` (a scope's folder: artifactDir(scope); by default the folder itself). */
  static create(ext = 'txt', dir?: string): ArtifactFile | string {
    try {
      sweepArtifacts(artifactDir());
      const id = nodeCrypto().randomUUID();
      const path = join(dir ?? artifactDir(), `${id}.${ext}`);
      const fd = openSync(path, 'wx', 0o600);
      rememberWritten(path, fd);
      return new ArtifactFile(id, path, fd, limits.maxFileBytes);
    } catch (err) {
      return reasonOf(err);
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

  /** Writes raw bytes at once (an image). */
  writeBytes(data: Buffer): void {
    if (this.fd === undefined) return;
    if (data.length > this.maxBytes - this.bytes) {
      this.fail(`the file would exceed the artifact cap of ${megabytes(this.maxBytes)}`);
      return;
    }
    this.writeOut(data, data.length);
  }

  private flush() {
    const pieces = this.pending;
    this.pending = [];
    this.pendingChars = 0;
    // Small pieces are joined into one write; a large piece goes out as it is.
    joinSmall(pieces, DIRECT_CHARS, (text) => this.writePiece(text));
  }

  private writePiece(piece: string) {
    let batch = piece;
    if (this.fd === undefined || !batch) return;
    const room = this.maxBytes - this.bytes;
    const bytes = Buffer.byteLength(batch, 'utf8');
    if (bytes <= room) {
      this.writeText(batch, bytes);
      return;
    }
    // Cut at a character: whole characters up to the cap.
    batch = Buffer.from(batch, 'utf8')
      .subarray(0, room)
      .toString('utf8')
      .replace(/\uFFFD$/, '');
    const data = Buffer.from(batch, 'utf8');
    this.writeOut(data, batch.length);
    if (!this.error) this.fail(`the artifact cap of ${megabytes(this.maxBytes)} was reached`);
  }

  /**
   * Writes text as it is (the file system encodes it): no Buffer to allocate, which for a cell
   * printing fast would be most of what the host allocates.
   */
  private writeText(text: string, bytes: number) {
    if (this.fd === undefined) return;
    let done = 0;
    try {
      done = writeSync(this.fd, text);
    } catch (err) {
      this.fail(reasonOf(err));
      return;
    }
    this.bytes += done;
    if (done < bytes) {
      // A short write: the rest as bytes.
      const data = Buffer.from(text, 'utf8');
      const written = data.subarray(0, done).toString('utf8').length;
      this.savedChars += written;
      this.writeOut(data.subarray(done), text.length - written);
      return;
    }
    this.savedChars += text.length;
  }

  private writeOut(data: Buffer, chars: number) {
    if (this.fd === undefined) return;
    let done = 0;
    try {
      while (done < data.length) done += writeSync(this.fd, data, done, data.length - done);
      this.savedChars += chars;
    } catch (err) {
      this.savedChars += data.subarray(0, done).toString('utf8').length;
      this.fail(reasonOf(err));
    } finally {
      this.bytes += done;
    }
  }

  /** Stops writing: the reason is kept for the note that names the file, and the file is closed. */
  private fail(reason: string): void {
    this.error = reason;
    this.close();
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

/** A file-system error as a short reason (`no space left on device (ENOSPC)`). */
export function reasonOf(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  const where = e.path ? ` (${e.path})` : '';
  if (e.code === 'ENOSPC') return `no space left on device (ENOSPC)${where}`;
  if (e.code === 'EDQUOT') return `the disk quota is exceeded (EDQUOT)${where}`;
  return e.message ?? String(err);
}
