'use strict';
/**
 * The pump thread (a worker): writes what the main thread queues in the ring (ring.cjs) to the
 * host, as runner.py's pump thread does. Output waits at most BATCH_MS to be coalesced into
 * larger frames; urgent frames (anything but stdout text) are written at once.
 */
const { workerData } = require('node:worker_threads');
const ring = require('./ring.cjs');

// (0 with OMP_EVAL_PERF_OFF=pump-batch, src/eval/perfOff.ts: only what is queued meanwhile coalesces)
const BATCH_MS = /(^|[\s,])pump-batch($|[\s,])/.test(process.env.OMP_EVAL_PERF_OFF ?? '') ? 0 : 4;

const { sab, fd } = workerData;
const { ctrl } = ring.views(sab);
const consumer = ring.createConsumer(sab, fd);

// From now on the main thread leaves the ring to us (it may be draining it right now: LOCK).
Atomics.store(ctrl, ring.READY, 1);
for (;;) {
  // Announce the sleep before looking: a producer publishing after the look sees the flag.
  Atomics.store(ctrl, ring.SLEEP, 1);
  if (Atomics.load(ctrl, ring.R) === Atomics.load(ctrl, ring.W)) Atomics.wait(ctrl, ring.SLEEP, 1);
  Atomics.store(ctrl, ring.SLEEP, 0);
  if (Atomics.load(ctrl, ring.R) === Atomics.load(ctrl, ring.W)) continue;
  if (Atomics.load(ctrl, ring.URGENT) === 0) Atomics.wait(ctrl, ring.URGENT, 0, BATCH_MS);
  Atomics.store(ctrl, ring.URGENT, 0);
  if (!consumer.drain()) break;
  if (Atomics.load(ctrl, ring.LOCK) !== 0) Atomics.wait(ctrl, ring.LOCK, 1, 1); // the main thread drains
}
