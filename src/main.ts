/**
 * The entry of the command line (bundled as dist/cli/cli.js): `run` and `tool` spawn their Python
 * kernel's process first (modes/early.ts), then the command line is parsed and run (cli.ts).
 */
import { discardEarly, startEarly } from './modes/early.js';

await startEarly(process.argv.slice(2));
try {
  await import('./cli.js');
} finally {
  discardEarly();
}
