'use strict';
/**
 * process.stdout/stderr writes (and so console.*) become output of the cell that wrote them:
 * queued in the ring (frames.cjs), no system call per write. fd 1 and fd 2 stay pipes: what child
 * processes and native code write there reaches the host directly.
 */
function installCapture({ proc, Buffer, StringDecoder, frames, membrane, outputId }) {
  const nextTick = proc.nextTick.bind(proc);
  const fromBytes = Buffer.from.bind(Buffer);
  // Write callbacks (console passes one on every call) run on the next tick, all in one.
  let callbacks = [];
  const runCallbacks = membrane.expose('writeCallbacks', () => {
    const due = callbacks;
    callbacks = [];
    for (let i = 0; i < due.length; i++) {
      try {
        due[i]();
      } catch (err) {
        // As a throwing callback would: uncaught; the later ones still run.
        callbacks = due.slice(i + 1).concat(callbacks);
        if (callbacks.length) nextTick(runCallbacks);
        throw err;
      }
    }
  });
  [proc.stdout, proc.stderr].forEach((stream, index) => {
    const decoder = new StringDecoder('utf8');
    stream.write = membrane.expose('write', (_, chunk, encoding, callback) => {
      if (typeof encoding === 'function') {
        callback = encoding;
        encoding = undefined;
      }
      let text;
      if (typeof chunk === 'string') {
        text =
          encoding && encoding !== 'utf8' && encoding !== 'utf-8'
            ? decoder.write(fromBytes(chunk, encoding))
            : chunk;
      } else if (ArrayBuffer.isView(chunk)) {
        text = decoder.write(fromBytes(chunk.buffer, chunk.byteOffset, chunk.byteLength));
      } else {
        throw new TypeError(
          `The "chunk" argument must be of type string or an instance of Buffer or Uint8Array. Received ${typeof chunk}`,
        );
      }
      if (text) frames.text(index, outputId(), text);
      if (typeof callback === 'function' && callbacks.push(callback) === 1) nextTick(runCallbacks);
      return true;
    });
    // Colours and widths as for a pipe: results are coloured by the host's choice, not by console.
    stream.isTTY = false;
  });
}

module.exports = { installCapture };
