/**
 * The MCP server's parts on their own: image fitting (real jimp), progress throttling, listen
 * addresses, artifact reads, the configuration command line.
 */
import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ArtifactFile, artifactDir } from '../../src/eval/output/artifact.js';
import { readArtifact } from '../../src/modes/mcp/artifacts.js';
import { parseListenAddress } from '../../src/modes/mcp/http.js';
import { fitImage, MAX_IMAGE_BYTES, MAX_SIDE } from '../../src/modes/mcp/images.js';
import { invocationFromArgv } from '../../src/modes/mcp/printConfig.js';
import { type ProgressParams, ProgressReporter } from '../../src/modes/mcp/progress.js';

async function png(width: number, height: number, noisy: boolean): Promise<string> {
  const { Jimp } = await import('jimp');
  const image = new Jimp({ width, height, color: 0x3366ccff });
  if (noisy) {
    const data = image.bitmap.data;
    let seed = 7;
    for (let i = 0; i < data.length; i++) {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      if (i % 4 !== 3) data[i] = seed & 0xff;
    }
  }
  return (await image.getBuffer('image/png')).toString('base64');
}

const dims = (base64: string, mime: string) => {
  const bytes = Buffer.from(base64, 'base64');
  if (mime === 'image/png') return [bytes.readUInt32BE(16), bytes.readUInt32BE(20)];
  for (let i = 2; i < bytes.length; ) {
    const marker = bytes[i + 1] as number;
    if (marker >= 0xc0 && marker <= 0xc2) return [bytes.readUInt16BE(i + 7), bytes.readUInt16BE(i + 5)];
    i += 2 + bytes.readUInt16BE(i + 2);
  }
  return [];
};

describe('fitImage', () => {
  it('passes an image within the limits through untouched', async () => {
    const data = await png(640, 480, false);
    expect(await fitImage({ mime: 'image/png', data, width: 640, height: 480 })).toEqual({
      mimeType: 'image/png',
      data,
      width: 640,
      height: 480,
    });
  });

  it('scales the long side down to 1568 px', async () => {
    const data = await png(3000, 1200, false);
    const fitted = await fitImage({ mime: 'image/png', data, width: 3000, height: 1200 });
    expect(fitted).toMatchObject({
      mimeType: 'image/png',
      width: MAX_SIDE,
      height: 627,
      note: 'scaled from 3000×1200',
    });
    expect(dims(fitted.data, 'image/png')).toEqual([MAX_SIDE, 627]);
  });

  it('bounds the payload: a noisy image becomes a smaller JPEG', async () => {
    const data = await png(1200, 1000, true);
    expect(data.length * 0.75).toBeGreaterThan(MAX_IMAGE_BYTES);
    const fitted = await fitImage({ mime: 'image/png', data, width: 1200, height: 1000 });
    expect(fitted.mimeType).toBe('image/jpeg');
    expect(Buffer.from(fitted.data, 'base64').length).toBeLessThanOrEqual(MAX_IMAGE_BYTES);
    expect(fitted.note).toMatch(/re-encoded as jpeg/);
    expect(dims(fitted.data, 'image/jpeg')).toEqual([fitted.width, fitted.height]);
  });
});

describe('ProgressReporter', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('coalesces status lines, throttles the output tail and counts up', async () => {
    vi.useFakeTimers();
    const sent: ProgressParams[] = [];
    const reporter = new ProgressReporter('tok', 2, async (p) => {
      sent.push(p);
    });
    reporter.onEvent(0, { kind: 'started' });
    await vi.advanceTimersByTimeAsync(0);
    expect(sent.map((p) => p.message)).toEqual(['cell 1/2 started']);
    for (let i = 0; i < 100; i++)
      reporter.onEvent(0, { kind: 'status', event: { op: 'log', message: `step ${i}` } });
    reporter.onEvent(0, { kind: 'status', event: { op: 'timeout-pause' } });
    await vi.advanceTimersByTimeAsync(60);
    expect(sent).toHaveLength(2);
    const lines = (sent[1]?.message ?? '').split('\n');
    expect(lines[0]).toBe('(80 earlier status lines left out)');
    expect(lines.at(-1)).toBe('log: step 99');
    for (let i = 0; i < 1000; i++) reporter.onEvent(1, { kind: 'stdout', text: `line ${i}\n` });
    await vi.advanceTimersByTimeAsync(2_000);
    const tails = sent.filter((p) => p.message.startsWith('output:'));
    expect(tails).toHaveLength(1);
    expect(tails[0]?.message).toBe('output: line 995\nline 996\nline 997\nline 998\nline 999');
    reporter.onEvent(1, { kind: 'status', event: { op: 'cd', path: '/tmp' } });
    await reporter.finish();
    expect(sent.at(-1)?.message).toBe('cd: path=/tmp');
    expect(sent.map((p) => p.progress)).toEqual(sent.map((_, i) => i + 1));
    expect(sent.every((p) => p.progressToken === 'tok')).toBe(true);
  });

  it('sends the status lines that came before some output ahead of its tail', async () => {
    vi.useFakeTimers();
    const sent: string[] = [];
    const reporter = new ProgressReporter('tok', 1, async (p) => {
      sent.push(p.message);
    });
    reporter.onEvent(0, { kind: 'started' });
    await vi.advanceTimersByTimeAsync(0);
    // Within the status interval of "cell started": the lines wait, the first tail is due at once.
    reporter.onEvent(0, { kind: 'status', event: { op: 'phase', title: 'loading' } });
    reporter.onEvent(0, { kind: 'status', event: { op: 'log', message: 'step one' } });
    reporter.onEvent(0, { kind: 'stdout', text: 'some output\n' });
    await vi.advanceTimersByTimeAsync(0);
    expect(sent).toEqual(['cell started', 'phase: loading\nlog: step one', 'output: some output']);
    await reporter.finish();
  });
});

describe('ProgressReporter: what the cell writes', () => {
  it('sends no escape sequence or control character, and each \\r line in its last state', async () => {
    vi.useFakeTimers();
    const sent: string[] = [];
    const reporter = new ProgressReporter('tok', 1, async (p) => {
      sent.push(p.message);
    });
    reporter.onEvent(0, { kind: 'status', event: { op: 'log', message: 'l1\x1b]0;pwn\x07' } });
    await vi.advanceTimersByTimeAsync(0);
    for (let i = 0; i < 3; i++) reporter.onEvent(0, { kind: 'stdout', text: `\rprog ${i}\x1b[2K` });
    reporter.onEvent(0, { kind: 'stdout', text: '\r\ndone\r\n' });
    await vi.advanceTimersByTimeAsync(1_000);
    await reporter.finish();
    vi.useRealTimers();
    expect(sent).toEqual(['log: l1', 'output: prog 2\ndone']);
  });
});

describe('parseListenAddress', () => {
  it('takes loopback addresses only', () => {
    expect(parseListenAddress('127.0.0.1:8765')).toEqual({ host: '127.0.0.1', port: 8765 });
    expect(parseListenAddress('localhost:0')).toEqual({ host: '127.0.0.1', port: 0 });
    expect(parseListenAddress('[::1]:9000')).toEqual({ host: '::1', port: 9000 });
    expect(parseListenAddress('8080')).toEqual({ host: '127.0.0.1', port: 8080 });
    for (const bad of ['0.0.0.0:1', '10.0.0.1:1', '[::]:1', 'host.example:1', '127.0.0.1:99999', 'x'])
      expect(() => parseListenAddress(bad)).toThrow(/loopback|HOST:PORT|out of range/);
  });
});

describe('readArtifact', () => {
  it('reads an artifact whole, or its first lines with a note naming the file', () => {
    const file = ArtifactFile.create();
    if (typeof file === 'string') throw new Error(file);
    file.write('héllo\n'.repeat(100));
    file.close();
    const text = (uri: string, limit?: number) => readArtifact(uri, limit) as { text: string };
    expect(text(file.uri).text).toBe('héllo\n'.repeat(100));
    const cut = text(file.uri, 50);
    expect(cut.text).toMatch(/^(héllo\n){7}\[resource cut: .* the whole output is the file .*\.txt/);
    expect(() => readArtifact('artifact://../etc/passwd')).toThrow(/Unknown resource/);
    expect(() => readArtifact('file:///etc/passwd')).toThrow(/artifact:\/\/<id> resources only/);
    expect(() => readArtifact('artifact://missing-one')).toThrow(/Resource not found/);
    // A file in the folder that this process did not write (another process's, a cell's) is not served.
    const id = `test-${process.pid}-${Date.now()}`;
    writeFileSync(`${artifactDir()}/${id}.txt`, 'not ours\n');
    expect(() => readArtifact(`artifact://${id}`)).toThrow(
      /Resource not found: .*\(this server did not write it/,
    );
  });
});

describe('invocationFromArgv', () => {
  it('repeats the command line without --print-config, with absolute paths', () => {
    const inv = invocationFromArgv(
      [
        '/usr/bin/node',
        '/no/such/bin/omp-eval.js',
        '--cwd',
        'proj',
        '--python=python3',
        'mcp',
        '--print-config',
        'claude',
      ],
      '/usr/bin/node',
    );
    expect(inv).toEqual({
      command: '/usr/bin/node',
      args: ['/no/such/bin/omp-eval.js', '--cwd', `${process.cwd()}/proj`, '--python', 'python3', 'mcp'],
    });
  });
});
