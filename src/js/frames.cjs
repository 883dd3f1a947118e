'use strict';
/**
 * Frames out: the producer side of the ring (ring.cjs). `send` queues a whole frame, `text` a
 * piece of stdout/stderr that the pump coalesces with its neighbours. Every frame line starts
 * with a newline (so a partial line that user code wrote to the channel cannot swallow it) and
 * carries the kernel's key, which the host checks: a cell cannot forge frames.
 */
const { Buffer } = require('node:buffer');
const ring = require('./ring.cjs');

const HIGH_WATER = ring.SIZE / 4;
/** Text is queued in pieces of at most this many UTF-16 units (3 bytes each at most). */
const TEXT_PIECE = 64 * 1024;
const RAW_PIECE = 256 * 1024;

/** Wakes the pump at once (`urgent`: no batching window). */
function wake(ctrl, urgent) {
  if (urgent) {
    Atomics.store(ctrl, ring.URGENT, 1);
    Atomics.notify(ctrl, ring.URGENT);
  }
}

/** Wakes the pump if it sleeps on an empty ring (see pump.cjs for why this cannot miss). */
function rouse(ctrl) {
  if (Atomics.load(ctrl, ring.SLEEP) === 1) {
    Atomics.store(ctrl, ring.SLEEP, 0);
    Atomics.notify(ctrl, ring.SLEEP);
  }
}

/** A record's header (see ring.cjs) at `pos`. */
function writeHeader(data, pos, kind, stream, idLen, length) {
  data[pos] = kind;
  data[pos + 1] = stream;
  data[pos + 2] = idLen;
  data[pos + 3] = 0;
  data[pos + 4] = length & 255;
  data[pos + 5] = (length >>> 8) & 255;
  data[pos + 6] = (length >>> 16) & 255;
  data[pos + 7] = length >>> 24;
}

/**
 * The producer's writes into the ring: records reserved (waiting while the ring is full, as with a
 * pipe), filled and published. `mainDrains()` says whether the main thread drains the ring itself
 * (with `consumer`) or leaves it to the pump.
 */
function createWriter(sab, consumer, { mainDrains, onHostGone }) {
  const { ctrl, data } = ring.views(sab);
  const dataBuffer = Buffer.from(data.buffer, data.byteOffset, data.byteLength);

  /** Reserves `need` contiguous bytes; returns the write position (ring offset). */
  function reserve(need) {
    for (;;) {
      if (Atomics.load(ctrl, ring.GONE)) onHostGone();
      const w = Atomics.load(ctrl, ring.W);
      const r = Atomics.load(ctrl, ring.R);
      const pos = w % ring.SIZE;
      const wrap = pos + need > ring.SIZE ? ring.SIZE - pos : 0;
      if (ring.SIZE - ring.used(w, r) >= wrap + need) {
        if (!wrap) return w;
        data[pos] = ring.KIND_PAD;
        Atomics.store(ctrl, ring.W, ring.advance(w, wrap));
        rouse(ctrl);
        continue;
      }
      // Full: the host reads slower than the cell writes, so the cell waits (as with a pipe).
      if (mainDrains()) {
        consumer.drain();
      } else {
        wake(ctrl, true);
        Atomics.wait(ctrl, ring.R, r, 20);
      }
    }
  }

  function publish(w, size, urgent) {
    Atomics.store(ctrl, ring.W, ring.advance(w, size));
    if (mainDrains()) {
      consumer.drain();
      return;
    }
    rouse(ctrl);
    wake(ctrl, urgent || ring.used(Atomics.load(ctrl, ring.W), Atomics.load(ctrl, ring.R)) > HIGH_WATER);
  }

  function appendRaw(buffer, urgent) {
    for (let at = 0; at < buffer.length; at += RAW_PIECE) {
      const piece = buffer.subarray(at, Math.min(buffer.length, at + RAW_PIECE));
      const size = ring.align(ring.HEADER + piece.length);
      const w = reserve(size);
      const pos = w % ring.SIZE;
      writeHeader(data, pos, ring.KIND_RAW, 0, ring.NULL_ID, piece.length);
      data.set(piece, pos + ring.HEADER);
      publish(w, size, urgent);
    }
  }

  function appendText(stream, idBytes, text) {
    const idLen = idBytes === null ? 0 : idBytes.length;
    const maxSize = ring.align(ring.HEADER + idLen + text.length * 3);
    const w = reserve(maxSize);
    const pos = w % ring.SIZE;
    const start = pos + ring.HEADER + idLen;
    for (let i = 0; i < idLen; i++) data[pos + ring.HEADER + i] = idBytes[i];
    // Buffer#write encodes in place (TextEncoder#encodeInto needs a view per call).
    const written = dataBuffer.write(text, start, text.length * 3, 'utf8');
    writeHeader(data, pos, ring.KIND_TEXT, stream, idBytes === null ? ring.NULL_ID : idLen, written);
    publish(w, ring.align(ring.HEADER + idLen + written), stream === 1);
  }

  /** Waits (bounded) until everything queued has been written. */
  function flush(timeoutMs) {
    if (Atomics.load(ctrl, ring.R) === Atomics.load(ctrl, ring.W)) return;
    const until = Date.now() + timeoutMs;
    while (Atomics.load(ctrl, ring.R) !== Atomics.load(ctrl, ring.W) && Date.now() < until) {
      if (Atomics.load(ctrl, ring.GONE)) return;
      if (mainDrains()) {
        consumer.drain();
      } else {
        wake(ctrl, true);
        Atomics.wait(ctrl, ring.R, Atomics.load(ctrl, ring.R), 10);
      }
    }
  }

  return { appendRaw, appendText, flush };
}

/** A cell id's UTF-8 bytes (at most 200 characters), kept for the last id asked for. */
function createIdEncoder() {
  let lastId;
  let lastIdBytes = Buffer.alloc(0);
  return function idBytesOf(id) {
    if (id === null) return null;
    if (id !== lastId) {
      lastId = id;
      lastIdBytes = Buffer.from(String(id).slice(0, 200), 'utf8');
    }
    return lastIdBytes;
  };
}

function createFrames(sab, { onHostGone }) {
  const { ctrl, bytes } = ring.views(sab);
  const consumer = ring.createConsumer(sab, 3);
  /**
   * The main thread drains the ring itself only until the pump runs (or if it died), and never
   * while a script with breakOnSigint runs: a drain that SIGINT cut short could write a frame
   * twice or in part. Meanwhile output waits in the ring for the pump.
   */
  let pumpDead = false;
  let scripts = 0;
  let keyPrefix = '{';
  const mainDrains = () => pumpDead || (scripts === 0 && Atomics.load(ctrl, ring.READY) === 0);
  const { appendRaw, appendText, flush } = createWriter(sab, consumer, { mainDrains, onHostGone });
  const idBytesOf = createIdEncoder();

  return {
    /** The kernel's key (from the host's init request): the prefix of every frame from now on. */
    setKey(key) {
      const encoded = Buffer.from(String(key), 'utf8').subarray(0, ring.KEY_MAX);
      bytes.set(encoded, ring.KEY_OFFSET);
      Atomics.store(ctrl, ring.KEY_LEN, encoded.length);
      keyPrefix = `{"key":${JSON.stringify(encoded.toString('utf8'))},`;
    },

    /**
     * Queues a whole frame (written at once, after everything queued before it); with `wait`,
     * returns once it has been written (`started`: the host must know before raw output comes).
     */
    send(frame, wait = false) {
      const json = JSON.stringify(frame);
      appendRaw(Buffer.from(`\n${keyPrefix}${json.slice(1)}\n`, 'utf8'), true);
      if (wait) this.flush();
    },

    /** Queues output of a stream (0 stdout, 1 stderr) of the cell `id` (null: between cells). */
    text(stream, id, text) {
      if (!text) return;
      const idBytes = idBytesOf(id);
      for (let at = 0; at < text.length; ) {
        let end = Math.min(text.length, at + TEXT_PIECE);
        // Never split a surrogate pair.
        if (end < text.length && (text.charCodeAt(end - 1) & 0xfc00) === 0xd800) end -= 1;
        appendText(stream, idBytes, at === 0 && end === text.length ? text : text.slice(at, end));
        at = end;
      }
    },

    /** Waits (bounded) until everything queued has been written. */
    flush(timeoutMs = 2000) {
      flush(timeoutMs);
    },

    /** True while such a script runs. */
    inScriptNow: () => scripts > 0,

    /** Runs `fn`, a script that SIGINT may stop (see above). */
    inScript(fn) {
      scripts += 1;
      try {
        return fn();
      } finally {
        scripts -= 1;
      }
    },

    /** The pump thread ended (it crashed): the main thread writes from now on. */
    pumpDied() {
      pumpDead = true;
      consumer.drain();
    },

    /** After an interrupted cell: a drain that SIGINT cut short must not hold the ring. */
    repair() {
      consumer.release();
    },
  };
}

module.exports = { createFrames };
