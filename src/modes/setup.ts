/**
 * `omp-eval setup python --check`: which interpreter omp-eval would use, why, and what was skipped.
 */

import { PythonNotFoundError, type ResolveOptions, resolvePython } from '../eval/index.js';
import type { Streams } from './output.js';

export async function checkPython(opts: ResolveOptions, { out, err }: Streams): Promise<number> {
  try {
    const python = await resolvePython(opts);
    out.write(`interpreter: ${python.executable}\n`);
    out.write(`version:     Python ${python.version.join('.')}\n`);
    out.write(
      `chosen from: ${python.source}${python.path !== python.executable ? ` (${python.path})` : ''}\n`,
    );
    if (python.binDir) out.write(`PATH:        ${python.binDir} is put first on the kernel's PATH\n`);
    if (python.tried.length) {
      out.write('skipped:\n');
      for (const t of python.tried) out.write(`  - ${t.candidate}: ${t.reason}\n`);
    }
    return 0;
  } catch (e) {
    err.write(`${e instanceof PythonNotFoundError ? e.message : `error: ${(e as Error).message}`}\n`);
    return 1;
  }
}
