/** Finding a program on PATH (here, below both: the sandbox needs it, and launch/python.ts needs the sandbox). */
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';

const isWindows = process.platform === 'win32';

/** Finds `name` on a PATH string, as a shell would. */
export function which(name: string, pathVar: string | undefined): string | undefined {
  for (const dir of (pathVar ?? '').split(delimiter)) {
    if (!dir) continue;
    const full = join(dir, isWindows && !name.endsWith('.exe') ? `${name}.exe` : name);
    try {
      // (no exception for the usual absent file: a PATH of a dozen entries made a dozen)
      if (statSync(full, { throwIfNoEntry: false })?.isFile()) {
        accessSync(full, constants.X_OK);
        return full;
      }
    } catch {
      // not here
    }
  }
  return undefined;
}
