/**
 * What the notebook's JavaScript costs to compile. V8 optimizes a function once it runs hot (on
 * helper threads, whose time is the notebook's too), and inlines into it what it calls, up to 920
 * bytes of bytecode by default (`--max-inlined-bytecode-size-cumulative`). The notebook's hot
 * code is React's and Ink's frames and the output path, large functions calling large functions:
 * while the first cells that print as fast as they can ran, about a fifth of the notebook's time
 * went to that compiler. With a quarter of the budget the compiled code does as well here, and
 * compiling costs less. Measured (200,000-line cells in a pty, four runs each): the first five
 * took 38–41 % of a core against 45–50 %, the later ones as much as before (32–37 %).
 */
import v8 from 'node:v8';

export const INLINED_BYTECODE_BUDGET = 230;

/** Sets V8's inlining budget for the rest of the process (read at each compilation). */
export function limitInlining(budget = INLINED_BYTECODE_BUDGET): void {
  v8.setFlagsFromString(`--max-inlined-bytecode-size-cumulative=${budget}`);
}
