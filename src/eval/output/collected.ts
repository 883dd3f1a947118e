/**
 * What a cell's result collects besides its text: images, JSON data and status events, each
 * bounded in count and size. What does not fit is left out of the result with a notice and kept
 * in artifact files: each image in a file of its own, the JSON outputs one per line in one file.
 */
import { ArtifactFile, megabytes } from './artifact.js';
import type { ImageOutput, StatusEvent } from './display.js';
import { HTML_LIMIT } from './html.js';
import { cutPoint, plainText } from './text.js';

export interface CollectLimits {
  images: number;
  /** Base64 characters of all kept images together. */
  imageChars: number;
  json: number;
  /** Characters of all kept JSON outputs together, serialized. */
  jsonChars: number;
  statusEvents: number;
  /** A status event's string fields are cut at this length. */
  statusFieldChars: number;
}

const DEFAULT_COLLECT_LIMITS: CollectLimits = {
  images: 8,
  imageChars: 24 * 1024 * 1024,
  json: 100,
  jsonChars: 4 * 1024 * 1024,
  statusEvents: 1000,
  statusFieldChars: 2000,
};

/** How many saved files a notice names before it says "and N more". */
const NAMED_FILES = 3;

/** The first NAMED_FILES of `files`, and how many more there are. */
function namedFiles(files: string[]): string {
  const more = files.length > NAMED_FILES ? ` and ${files.length - NAMED_FILES} more beside them` : '';
  return `${files.slice(0, NAMED_FILES).join(', ')}${more}`;
}

export class ResultCollector {
  readonly images: ImageOutput[] = [];
  readonly json: unknown[] = [];
  readonly statusEvents: StatusEvent[] = [];
  private readonly limits: CollectLimits;
  private imageChars = 0;
  private jsonChars = 0;
  private readonly dropped = {
    images: { count: 0, bytes: 0, files: [] as string[], errors: new Set<string>() },
    json: { count: 0, chars: 0 },
    html: { count: 0, files: [] as string[], errors: new Set<string>() },
    status: 0,
  };
  private jsonFile?: ArtifactFile | string;

  /** Where its files go: the executor's scope folder (artifact.ts), else the folder itself. */
  private readonly artifactFolder?: string;

  constructor(limits: Partial<CollectLimits> & { artifactDir?: string } = {}) {
    const { artifactDir: folder, ...rest } = limits;
    this.limits = { ...DEFAULT_COLLECT_LIMITS, ...rest };
    if (folder) this.artifactFolder = folder;
  }

  /** Keeps `image` in the result, or saves it as a file the notice names; true when kept. */
  addImage(image: ImageOutput): boolean {
    const { images, imageChars } = this.limits;
    if (this.images.length < images && this.imageChars + image.data.length <= imageChars) {
      this.images.push(image);
      this.imageChars += image.data.length;
      return true;
    }
    const bytes = Buffer.from(image.data, 'base64');
    const dropped = this.dropped.images;
    dropped.count++;
    dropped.bytes += bytes.length;
    const file = ArtifactFile.create(image.mime === 'image/png' ? 'png' : 'jpg', this.artifactFolder);
    if (typeof file === 'string') {
      dropped.errors.add(file);
      return false;
    }
    file.writeBytes(bytes);
    file.close();
    if (file.error) dropped.errors.add(file.error);
    else dropped.files.push(`${file.uri} (${file.path})`);
    return false;
  }

  /**
   * Saves HTML whose text form was cut for display (a large DataFrame) as a file of its own;
   * returns a line saying where it is (or why it is not), for the front ends to show under it.
   */
  addCutHtml(html: string): string {
    const dropped = this.dropped.html;
    dropped.count++;
    const file = ArtifactFile.create('html', this.artifactFolder);
    let error = typeof file === 'string' ? file : undefined;
    if (typeof file !== 'string') {
      file.write(html);
      file.close();
      error = file.error;
      if (!error) dropped.files.push(file.path);
    }
    if (error) dropped.errors.add(error);
    const cut = `HTML over ${Math.round(HTML_LIMIT / 1e3)} kB cut for display`;
    return error || typeof file === 'string'
      ? `${cut}; not saved: ${error}`
      : `${cut}; the whole HTML is in ${file.path}`;
  }

  /** Keeps `value` (whose JSON is `serialized`, when known) or writes it to the JSON artifact. */
  addJson(value: unknown, serialized?: string): void {
    const text = serialized ?? JSON.stringify(value) ?? 'null';
    if (this.json.length < this.limits.json && this.jsonChars + text.length <= this.limits.jsonChars) {
      this.json.push(value);
      this.jsonChars += text.length;
      return;
    }
    this.dropped.json.count++;
    this.dropped.json.chars += text.length;
    this.jsonFile ??= ArtifactFile.create('txt', this.artifactFolder);
    if (typeof this.jsonFile !== 'string') this.jsonFile.write(`${text}\n`);
  }

  /** Forgets the images and JSON kept so far (clear_output: what came before is not the result). */
  clearDisplays(): void {
    this.images.length = 0;
    this.json.length = 0;
    this.imageChars = 0;
    this.jsonChars = 0;
  }

  addStatus(event: StatusEvent): void {
    if (this.statusEvents.length >= this.limits.statusEvents) {
      this.dropped.status++;
      return;
    }
    const max = this.limits.statusFieldChars;
    const bounded: StatusEvent = { ...event };
    // Strings from the cell, plain (no escape sequence reaches a client's terminal), and bounded.
    for (const [key, value] of Object.entries(bounded)) {
      if (typeof value === 'string') {
        const plain = plainText(value);
        bounded[key] = plain.length > max ? `${plain.slice(0, cutPoint(plain, max))}…` : plain;
      } else if (value && typeof value === 'object') {
        const json = JSON.stringify(value) ?? '';
        if (json.length > max) bounded[key] = `${json.slice(0, cutPoint(json, max))}…`;
      }
    }
    this.statusEvents.push(bounded);
  }

  /** Closes the files; returns a notice for each kind of output that was left out. */
  finish(): string[] {
    const notices: string[] = [];
    const { images, json, html, status } = this.dropped;
    const limits = this.limits;
    if (images.count) {
      const saved = images.files.length ? `; saved as ${namedFiles(images.files)}` : '';
      const failed = images.errors.size ? `; not saved: ${[...images.errors].join('; ')}` : '';
      notices.push(
        `${images.count} image${images.count > 1 ? 's' : ''} (${megabytes(images.bytes)}) left out of the result, which keeps at most ${limits.images} images of ${megabytes((limits.imageChars * 3) / 4)} in all${saved}${failed}`,
      );
    }
    if (json.count) {
      const file = this.jsonFile;
      let where: string;
      if (typeof file === 'string' || file === undefined) where = `not saved: ${file ?? 'no artifact'}`;
      else {
        file.close();
        where = file.error
          ? `only partly saved, in ${file.uri} (${file.path}): ${file.error}`
          : `saved one per line in ${file.uri} (${file.path})`;
      }
      notices.push(
        `${json.count} JSON output${json.count > 1 ? 's' : ''} (${megabytes(json.chars)}) left out of the result, which keeps at most ${limits.json} of ${megabytes(limits.jsonChars)} in all; ${where}`,
      );
    }
    if (html.count) {
      const saved = html.files.length ? `; the whole HTML is in ${namedFiles(html.files)}` : '';
      const failed = html.errors.size ? `; not saved: ${[...html.errors].join('; ')}` : '';
      notices.push(
        `${html.count} HTML output${html.count > 1 ? 's' : ''} over ${Math.round(HTML_LIMIT / 1e3)} kB cut for display${saved}${failed}`,
      );
    }
    if (status)
      notices.push(
        `${status} status event${status > 1 ? 's' : ''} left out of statusEvents (at most ${limits.statusEvents}); their lines are in the text`,
      );
    return notices;
  }
}
