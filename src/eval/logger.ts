/**
 * How the engine reports what is not a cell's output: protocol traces and warnings (a tampered
 * runner cache, a line from a kernel that is not a frame). The engine never writes to the
 * terminal itself; a front end injects a logger that writes where it fits (stderr for the line
 * front ends, after the screen is restored for the notebook).
 */
export interface Logger {
  /** Protocol tracing (every frame in both directions), only when tracing is on. */
  trace(message: string): void;
  /** Something went wrong that the user may want to know about; work goes on. */
  warn(message: string): void;
}

/** The default: the engine says nothing unless a front end asks for it. */
export const silentLogger: Logger = { trace: () => {}, warn: () => {} };

/** A logger writing lines to a stream (`omp-eval: warning: ...`). */
export function streamLogger(stream: { write(text: string): unknown }): Logger {
  return {
    trace: (message) => stream.write(`${message.endsWith('\n') ? message : `${message}\n`}`),
    warn: (message) => stream.write(`omp-eval: warning: ${message}\n`),
  };
}
