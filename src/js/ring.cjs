'use strict';
/**
 * The frame queue between the kernel's main thread and its pump thread: a ring of records in a
 * SharedArrayBuffer. The main thread only copies bytes in (no system call per console.log); the
 * pump (pump.cjs, a worker) turns records into NDJSON frames and writes them to the host, every
 * few milliseconds or at once when a frame is urgent, so a line printed just before a long
 * synchronous computation still arrives (the main thread is busy, the pump is not). Until the
 * pump has started, and if it dies, the main thread drains the ring itself.
 *
 * Positions run over [0, 2 * SIZE) so that a full ring and an empty one differ.
 * A record: kind (u8), stream (u8), id length (u8, 255 = null id), 0, payload length (u32 LE),
 * id bytes, payload; records are 8-byte aligned and never wrap (a pad record fills the end).
 */
const fs = require('node:fs');
const { Buffer } = require('node:buffer');
const { TextDecoder } = require('node:util');

const SIZE = 1 << 20;
const HEADER = 8;
const KEY_OFFSET = 64;
const KEY_MAX = 64;
const DATA_OFFSET = KEY_OFFSET + KEY_MAX;

/** Slots of the control array. */
const W = 0; // producer position
const R = 1; // consumer position
const SLEEP = 2; // 1 while the pump sleeps on an empty ring (a producer that sees it wakes it)
const URGENT = 3; // 1: write now, no batching window
const READY = 4; // 1: the pump runs
const GONE = 5; // 1: the host stopped reading (write failed)
const LOCK = 6; // 0 free, 1 a consumer is draining
const KEY_LEN = 7;

const KIND_PAD = 0;
const KIND_RAW = 1;
const KIND_TEXT = 2;
const NULL_ID = 255;

/** Text frames are cut at this many characters (as runner.py caps its frames). */
const MAX_FRAME_CHARS = 512 * 1024;

const RELEASE_STEP = 64 * 1024;

const align = (n) => (n + 7) & ~7;

function createRing() {
  return new SharedArrayBuffer(DATA_OFFSET + SIZE);
}

function views(sab) {
  return {
    ctrl: new Int32Array(sab, 0, 16),
    bytes: new Uint8Array(sab),
    data: new Uint8Array(sab, DATA_OFFSET, SIZE),
  };
}

const used = (w, r) => (w - r + 2 * SIZE) % (2 * SIZE);
const advance = (pos, n) => (pos + n) % (2 * SIZE);

/**
 * Writes a whole buffer to `fd` (waiting out EAGAIN); false, with GONE set, when the host stopped
 * reading. `writeSync` is the runner's own reference: cells may replace fs.writeSync.
 */
function fdWriter(fd, ctrl) {
  const { writeSync } = fs;
  return function writeFully(buffer) {
    let offset = 0;
    while (offset < buffer.length) {
      try {
        offset += writeSync(fd, buffer, offset, buffer.length - offset);
      } catch (err) {
        if (err && err.code === 'EAGAIN') {
          Atomics.wait(ctrl, GONE, 0, 2);
          continue;
        }
        Atomics.store(ctrl, GONE, 1); // the host is gone: nobody reads our frames any more
        return false;
      }
    }
    return true;
  };
}

/** The prefix of every frame line: the kernel's key once the main thread has set it. */
function keyPrefixReader(ctrl, bytes, decoder) {
  let keyPrefix = null;
  return function prefix() {
    if (keyPrefix === null && Atomics.load(ctrl, KEY_LEN) > 0) {
      const key = decoder.decode(bytes.slice(KEY_OFFSET, KEY_OFFSET + Atomics.load(ctrl, KEY_LEN)));
      keyPrefix = `{"key":${JSON.stringify(key)},`;
    }
    return keyPrefix ?? '{';
  };
}

/**
 * A consumer: drains the ring into NDJSON lines on `fd`. Used by the pump thread, and by the main
 * thread while the pump is not running. Only one drains at a time (LOCK).
 */
function createConsumer(sab, fd) {
  const { ctrl, bytes, data } = views(sab);
  const writeFully = fdWriter(fd, ctrl);
  const decoder = new TextDecoder();
  const idDecoder = new TextDecoder();
  const prefix = keyPrefixReader(ctrl, bytes, idDecoder);

  function release(r) {
    Atomics.store(ctrl, R, r);
    Atomics.notify(ctrl, R);
  }

  /** Writes everything queued so far; returns false when the host stopped reading. */
  function drain() {
    if (Atomics.compareExchange(ctrl, LOCK, 0, 1) !== 0) return true;
    state.holding = true; // stays true if SIGINT terminates the main thread in here
    try {
      let r = Atomics.load(ctrl, R);
      let released = r;
      const w = Atomics.load(ctrl, W);
      let text = [];
      let chars = 0;
      let runKey = null;
      const flushText = () => {
        if (!text.length) return true;
        const [stream, id] = runKey;
        const line = `\n${prefix()}"type":"${stream ? 'stderr' : 'stdout'}","id":${id},"data":${JSON.stringify(text.join(''))}}\n`;
        text = [];
        chars = 0;
        return writeFully(Buffer.from(line, 'utf8'));
      };
      while (r !== w) {
        const pos = r % SIZE;
        const kind = data[pos];
        if (kind === KIND_PAD) {
          r = advance(r, SIZE - pos);
          continue;
        }
        const idLen = data[pos + 2];
        const length = data[pos + 4] | (data[pos + 5] << 8) | (data[pos + 6] << 16) | (data[pos + 7] << 24);
        const start = pos + HEADER + (idLen === NULL_ID ? 0 : idLen);
        if (kind === KIND_TEXT) {
          const id =
            idLen === NULL_ID
              ? 'null'
              : JSON.stringify(idDecoder.decode(data.subarray(pos + HEADER, pos + HEADER + idLen)));
          const key = [data[pos + 1], id];
          if (runKey && (runKey[0] !== key[0] || runKey[1] !== key[1] || chars >= MAX_FRAME_CHARS)) {
            if (!flushText()) return false;
          }
          runKey = key;
          const piece = decoder.decode(data.subarray(start, start + length));
          text.push(piece);
          chars += piece.length;
        } else {
          if (!flushText()) return false;
          if (!writeFully(Buffer.from(data.subarray(start, start + length)))) return false;
        }
        r = advance(r, align(HEADER + (idLen === NULL_ID ? 0 : idLen) + length));
        // Free the space once its bytes are copied out (a producer may be waiting for it).
        if (used(r, released) >= RELEASE_STEP) {
          release(r);
          released = r;
        }
      }
      if (!flushText()) return false;
      release(r);
      return true;
    } finally {
      state.holding = false;
      Atomics.store(ctrl, LOCK, 0);
    }
  }

  const state = {
    drain,
    holding: false,
    /** Gives the ring back after a drain that never finished (its thread was terminated). */
    release() {
      if (!state.holding) return;
      state.holding = false;
      Atomics.store(ctrl, LOCK, 0);
    },
  };
  return state;
}

module.exports = {
  SIZE,
  HEADER,
  KEY_OFFSET,
  KEY_MAX,
  W,
  R,
  SLEEP,
  URGENT,
  READY,
  GONE,
  LOCK,
  KEY_LEN,
  KIND_RAW,
  KIND_TEXT,
  KIND_PAD,
  NULL_ID,
  align,
  used,
  advance,
  createRing,
  views,
  createConsumer,
};
