// Copies the files tsc does not emit beside the compiled code: the kernels' own files, so
// `new URL('../py/runner.py', import.meta.url)` and `new URL('../js/runner.cjs', ...)` resolve the
// same way from src/ and from dist/src/, and the generated schema validators.
import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';

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

// The kernel's files' hash (src/eval/launch/runnerFile.ts, kernelFilesHash: the name of their
// entry in the runner cache), so that a start need not read and hash them: the sorted names of
// runner.py and the omp_kernel package's .py files, each with its content.
const kernelFiles = [
  'runner.py',
  ...readdirSync('dist/src/py/omp_kernel', { recursive: true })
    .filter((name) => name.endsWith('.py') && !name.includes('__pycache__'))
    .map((name) => `omp_kernel/${name.replaceAll('\\', '/')}`),
].sort();
const hash = createHash('sha256');
for (const name of kernelFiles)
  hash
    .update(name)
    .update('\0')
    .update(readFileSync(`dist/src/py/${name}`, 'utf8'));
writeFileSync('dist/src/py/kernel-files.json', JSON.stringify({ hash: hash.digest('hex').slice(0, 16) }));
