// Copies the Python side beside the compiled code, so `new URL('../py/runner.py', import.meta.url)`
// resolves the same way from src/ and from dist/src/.
import { cpSync, mkdirSync, readdirSync } from 'node:fs';

mkdirSync('dist/src/py', { recursive: true });
for (const name of readdirSync('src/py')) {
  if (name.endsWith('.py')) cpSync(`src/py/${name}`, `dist/src/py/${name}`);
}
