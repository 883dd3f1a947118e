// Copies the files tsc does not emit beside the compiled code: the kernels' own files, so
// `new URL('../py/runner.py', import.meta.url)` and `new URL('../js/runner.cjs', ...)` resolve the
// same way from src/ and from dist/src/, and the generated schema validators.
import { cpSync, mkdirSync, readdirSync } from 'node:fs';

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
