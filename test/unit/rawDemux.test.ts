import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OutputMerge, type RawItem, type RawStream, RawStreamDemux } from '../../src/eval/kernel/rawDemux.js';
import { type Frame, SYNC_MARK_START, syncMark } from '../../src/eval/protocol/index.js';

const KEY = 'a1b2c3d4e5f6';
const mark = (n: number, kind: 'f' | 'r' = 'f', key = KEY) => syncMark(key, kind, n);

/** Output pieces with what trips a marker parser: NULs, fake markers, multi-byte characters. */
const piece = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.constantFrom('é', '日本', '🎉', '\u0000', 'omp-sync:', SYNC_MARK_START, `${SYNC_MARK_START}${KEY}`),
  fc.constantFrom(
    mark(1, 'f', 'ffffffffffff'),
    `${SYNC_MARK_START}${KEY}:x1\u0000`,
    `${SYNC_MARK_START}${KEY}:f\u0000`,
    `${SYNC_MARK_START}${KEY}:${'9'.repeat(40)}`,
  ),
);
/** Output never holds a whole real marker (only the runner knows the key). */
const output = fc
  .array(piece, { maxLength: 10 })
  .map((p) => p.join(''))
  .filter((d) => !/\u0000omp-sync:a1b2c3d4e5f6:[fr]\d+\u0000/.test(d));

/** Cuts `bytes` into chunks of the given sizes (reused in turn). */
function chunks(bytes: Buffer, cuts: number[]): Buffer[] {
  const out: Buffer[] = [];
  for (let at = 0, i = 0; at < bytes.length; i++) {
    const size = cuts[i % cuts.length] as number;
    out.push(bytes.subarray(at, at + size));
    at += size;
  }
  return out;
}

function demuxAll(demux: RawStreamDemux, parts: Buffer[]) {
  const items: RawItem[] = parts.flatMap((part) => demux.push(part));
  const tail = demux.end();
  if (tail) items.push({ text: tail });
  return {
    text: items.map((i) => ('text' in i ? i.text : '')).join(''),
    marks: items.flatMap((i) => ('mark' in i ? [i.mark.n] : [])),
  };
}

describe('the raw stream demultiplexer', () => {
  it('passes any output through unchanged and finds every marker, however the bytes are cut', () => {
    fc.assert(
      fc.property(
        fc.array(output, { maxLength: 8 }),
        output,
        fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 30 }),
        (cells, trailing, cuts) => {
          const stream = cells.map((out, n) => out + mark(n)).join('') + trailing;
          const { text, marks } = demuxAll(new RawStreamDemux(KEY), chunks(Buffer.from(stream), cuts));
          expect(text).toBe(cells.join('') + trailing);
          expect(marks).toEqual(cells.map((_, n) => n));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('keeps a character whole when a marker lands between its bytes (a thread wrote meanwhile)', () => {
    const e = Buffer.from('é');
    const bytes = Buffer.concat([e.subarray(0, 1), Buffer.from(mark(4, 'r')), e.subarray(1)]);
    const { text, marks } = demuxAll(new RawStreamDemux(KEY), chunks(bytes, [1]));
    expect(text).toBe('é');
    expect(marks).toEqual([4]);
  });

  it('shows a marker start whose end never comes as text', () => {
    const open = `${SYNC_MARK_START}${KEY}:${'1'.repeat(300)}`;
    expect(demuxAll(new RawStreamDemux(KEY), [Buffer.from(open)]).text).toBe(open);
  });
});

/**
 * A runner's writes, as ops: text on a raw stream, a barrier of the raw streams alone, or a frame
 * (with a barrier, as Python's display/done, or without, as js's stdout frames).
 */
type Op =
  | { kind: 'text'; stream: RawStream; text: string }
  | { kind: 'barrier' }
  | { kind: 'frame'; synced: boolean };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    kind: fc.constant('text' as const),
    stream: fc.constantFrom<RawStream>('stdout', 'stderr'),
    text: fc.string({ unit: fc.constantFrom('a', 'é', '日', '🎉', '\n', ' '), minLength: 1, maxLength: 12 }),
  }),
  fc.constant({ kind: 'barrier' as const }),
  fc.record({ kind: fc.constant('frame' as const), synced: fc.boolean() }),
);

/** What each op puts on the three pipes, and the epoch (barriers before it) of each piece. */
function write(ops: Op[]) {
  const pipes = { stdout: [] as string[], stderr: [] as string[], frames: [] as Frame[] };
  let barrier = 0;
  let seq = 0;
  const epochOf = new Map<string, number>();
  for (const o of ops) {
    if (o.kind === 'text') {
      const text = `<${seq++}:${o.text}>`;
      epochOf.set(text, barrier);
      pipes[o.stream].push(text);
    } else if (o.kind === 'barrier') {
      pipes.stdout.push(mark(barrier, 'r'));
      pipes.stderr.push(mark(barrier, 'r'));
      barrier++;
    } else {
      const id = `f${seq++}`;
      if (o.synced) {
        pipes.stdout.push(mark(barrier, 'f'));
        pipes.stderr.push(mark(barrier, 'f'));
        pipes.frames.push({ type: 'started', id, sync: barrier });
        epochOf.set(id, barrier + 0.5);
        barrier++;
      } else {
        pipes.frames.push({ type: 'started', id });
      }
    }
  }
  return { pipes, epochOf };
}

describe('the output merge', () => {
  it('puts any interleaving of the three pipes back in the order the runner wrote them', () => {
    fc.assert(
      fc.property(
        fc.array(op, { maxLength: 30 }),
        fc.array(fc.integer({ min: 1, max: 30 }), { minLength: 1, maxLength: 20 }),
        fc.array(fc.constantFrom(0, 1, 2), { minLength: 1, maxLength: 40 }),
        (ops, cuts, picks) => {
          const { pipes, epochOf } = write(ops);
          const out: { stream: string; text: string }[] = [];
          const merge = new OutputMerge(KEY, {
            text: (stream, text) => out.push({ stream, text }),
            frame: (frame) => out.push({ stream: 'frames', text: frame.id ?? '' }),
          });
          // The host reads whichever pipe has data: any order of chunks across the three.
          const queues = [
            chunks(Buffer.from(pipes.stdout.join('')), cuts),
            chunks(Buffer.from(pipes.stderr.join('')), cuts),
            [...pipes.frames],
          ];
          for (let i = 0; queues.some((q) => q.length); i++) {
            let which = picks[i % picks.length] as number;
            while (!queues[which]?.length) which = (which + 1) % 3;
            const next = queues[which]?.shift();
            if (which === 2) merge.frame(next as Frame);
            else merge.raw(which === 0 ? 'stdout' : 'stderr', next as Buffer);
          }
          merge.endStream('stdout');
          merge.endStream('stderr');
          // Everything arrived before the ends: nothing waited for them.
          const beforeFinish = out.length;
          merge.finish();
          expect(out.length).toBe(beforeFinish);
          const text = (stream: string) =>
            out
              .filter((o) => o.stream === stream)
              .map((o) => o.text)
              .join('');
          expect(text('stdout')).toBe(pipes.stdout.filter((p) => p.startsWith('<')).join(''));
          expect(text('stderr')).toBe(pipes.stderr.filter((p) => p.startsWith('<')).join(''));
          expect(out.filter((o) => o.stream === 'frames').map((o) => o.text)).toEqual(
            pipes.frames.map((f) => f.id),
          );
          // Pieces of text and synced frames come in the order of their barriers: each piece is
          // placed at the output event that began it.
          const placed: { at: number; epoch: number }[] = [];
          for (const stream of ['stdout', 'stderr'] as const) {
            const events = out.flatMap((o, at) =>
              o.stream === stream ? [{ at, length: o.text.length }] : [],
            );
            let offset = 0;
            let event = 0;
            let eventEnd = events[0]?.length ?? 0;
            for (const piece of pipes[stream].filter((p) => p.startsWith('<'))) {
              while (offset >= eventEnd && event < events.length - 1)
                eventEnd += events[++event]?.length ?? 0;
              placed.push({ at: events[event]?.at ?? -1, epoch: epochOf.get(piece) as number });
              offset += piece.length;
            }
          }
          out.forEach((o, at) => {
            if (o.stream === 'frames' && epochOf.has(o.text))
              placed.push({ at, epoch: epochOf.get(o.text) as number });
          });
          placed.sort((a, b) => a.at - b.at);
          const epochs = placed.map((p) => p.epoch);
          expect(epochs).toEqual([...epochs].sort((a, b) => a - b));
        },
      ),
      { numRuns: 400 },
    );
  });

  it('holds a frame until the output before its barrier came, and output after it until the frame', () => {
    const out: string[] = [];
    const merge = new OutputMerge(KEY, {
      text: (stream, text) => out.push(`${stream}:${text}`),
      frame: (frame) => out.push(`frame:${frame.type}`),
    });
    merge.frame({ type: 'done', id: 'c1', status: 'ok', executionCount: 1, cancelled: false, sync: 0 });
    merge.raw('stdout', Buffer.from(`late${mark(0)}next`));
    expect(out).toEqual(['stdout:late']);
    expect(merge.pending).toBe(0);
    merge.raw('stderr', Buffer.from(`err${mark(0)}`));
    expect(out).toEqual(['stdout:late', 'stderr:err', 'frame:done', 'stdout:next']);
    expect(merge.pending).toBeUndefined();
  });

  it('lets a barrier pass when forced (a marker that never comes) and at the end', () => {
    const out: string[] = [];
    const merge = new OutputMerge(KEY, {
      text: (stream, text) => out.push(`${stream}:${text}`),
      frame: (frame) => out.push(`frame:${frame.type}`),
    });
    merge.raw('stdout', Buffer.from(`a${mark(0, 'r')}b`));
    expect(out).toEqual(['stdout:a']);
    merge.force();
    expect(out).toEqual(['stdout:a', 'stdout:b']);
    // The late marker of a forced barrier is passed over.
    merge.raw('stderr', Buffer.from(`${mark(0, 'r')}c${mark(1, 'f')}d`));
    expect(out).toEqual(['stdout:a', 'stdout:b', 'stderr:c']);
    merge.finish();
    expect(out).toEqual(['stdout:a', 'stdout:b', 'stderr:c', 'stderr:d']);
  });

  it('does not wait for a stream that ended (a cell closed fd 2 and no child holds it)', () => {
    const out: string[] = [];
    const merge = new OutputMerge(KEY, {
      text: (stream, text) => out.push(`${stream}:${text}`),
      frame: (frame) => out.push(`frame:${frame.type}`),
    });
    merge.endStream('stderr');
    merge.raw('stdout', Buffer.from(`x${mark(0)}`));
    merge.frame({ type: 'started', id: 'c', sync: 0 });
    expect(out).toEqual(['stdout:x', 'frame:started']);
  });
});
