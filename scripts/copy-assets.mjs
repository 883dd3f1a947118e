// Copies the files tsc does not emit beside the compiled code: the kernels' own files, so
// `new URL('../py/runner.py', import.meta.url)` and `new URL('../js/runner.cjs', ...)` resolve the
// same way from src/ and from dist/src/, and the generated schema validators.
import { cpSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';

for (const [dir, ext] of [
  ['py', '.py'],
  ['js', '.cjs'],
  ['eval/schemas', '.js'],
]) {
  mkdirSync(`dist/src/${dir}`, { recursive: true });
  for (const name of readdirSync(`src/${dir}`, { recursive: true })) {
    if (name.endsWith(ext) && !name.includes('__pycache__'))
      cpSync(`src/${dir}/${name}`, `dist/src/${dir}/${name}`, { recursive: true });
  }
}

// The kernel's files' hash (the name of their entry in the runner cache), so that a start need not
// read and hash them: kernelFilesHash of the files just copied, by the compiled runnerFile.js
// itself (transpile.mjs runs first), so the build and a start from the sources name it alike.
const { getKernelSources, kernelFilesHash } = await import('../dist/src/eval/launch/runnerFile.js');
writeFileSync('dist/src/py/kernel-files.json', JSON.stringify({ hash: kernelFilesHash(getKernelSources()) }));
