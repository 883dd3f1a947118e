'use strict';
/**
 * agent() and completion() ask the host through a socket pair on fd 5 (announced by
 * OMP_BRIDGE_FD=5, removed from the environment): one JSON line per call,
 * `{id, kind, cell, payload}`, answered by `{id, ok, value | error}`, as for the Python kernel.
 * The host answers a cancelled cell's calls at once.
 */
const { lineSplitter } = require('./requests.cjs');

const BRIDGE_FD = 5;
/** The longest call line the host reads (protocol/bridge.ts says the same). */
const MAX_CALL_BYTES = 16 * 1024 * 1024;

function createBridge({ net, proc, membrane, StringDecoder, Buffer }) {
  const waiting = new Map();
  let nextId = 1;
  let socket = null;
  let closed = 'the host bridge is not available in this kernel';

  function failAll(message) {
    closed = message;
    for (const [id, call] of waiting) {
      waiting.delete(id);
      call.reject(message);
    }
  }

  function onLine(line) {
    let reply;
    try {
      reply = JSON.parse(line);
    } catch {
      return;
    }
    const call = reply && waiting.get(reply.id);
    if (!call) return;
    waiting.delete(reply.id);
    if (reply.ok) call.resolve(JSON.stringify(reply.value ?? null));
    else call.reject(String(reply.error ?? 'the host could not answer'));
  }

  if (proc.env.OMP_BRIDGE_FD === String(BRIDGE_FD)) {
    delete proc.env.OMP_BRIDGE_FD;
    try {
      socket = new net.Socket({ fd: BRIDGE_FD, readable: true, writable: true });
      socket.unref();
      closed = null;
      const decoder = new StringDecoder('utf8');
      const push = lineSplitter(onLine);
      socket.on(
        'data',
        membrane.expose('onBridgeData', (_, chunk) => push(decoder.write(chunk))),
      );
      const onClose = membrane.expose('onBridgeClose', () => failAll('the host closed the bridge'));
      socket.on('end', onClose);
      socket.on('error', onClose);
    } catch {
      socket = null;
    }
  }

  /** Sends one call; `resolve` gets the value as JSON, `reject` a message (main-realm functions). */
  return function call(kind, payloadJson, cell, resolve, reject) {
    if (closed !== null) {
      reject(closed);
      return;
    }
    const id = nextId++;
    const payload = typeof payloadJson === 'string' ? payloadJson : '{}';
    const line = `{"id":${id},"kind":${JSON.stringify(String(kind))},"cell":${JSON.stringify(cell)},"payload":${payload}}\n`;
    const bytes = Buffer.byteLength(line);
    if (bytes > MAX_CALL_BYTES) {
      reject(
        `the ${kind}() call is ${bytes} bytes of JSON; a bridge call may be at most ${MAX_CALL_BYTES} bytes (16 MiB)`,
      );
      return;
    }
    waiting.set(id, { resolve, reject });
    socket.write(line);
  };
}

module.exports = { createBridge };
