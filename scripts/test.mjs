// `npm test`: the linters and the build, then the type check, vitest (with coverage) and the
// Python tests side by side. Vitest keeps both cores busy but not all the time (its tests wait on
// kernels and servers); the type check and the Python tests fill that time instead of adding
// theirs after it. Their output is printed after vitest's, each under its name; the command fails
// if any part fails.
import { spawn, spawnSync } from 'node:child_process';

for (const script of ['lint', 'lint:py', 'build']) {
  const { status } = spawnSync('npm', ['run', script], { stdio: 'inherit' });
  if (status !== 0) process.exit(status ?? 1);
}

/** Runs `npm run <script>` with its output kept for later. */
function quietly(script) {
  return new Promise((resolve) => {
    const child = spawn('npm', ['run', '-s', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => {
      output += d;
    });
    child.stderr.on('data', (d) => {
      output += d;
    });
    child.on('close', (code, signal) => resolve({ script, code: code ?? (signal ? 1 : 0), output }));
  });
}

const beside = [quietly('typecheck'), quietly('test:py')];
const vitest = await new Promise((resolve) => {
  spawn('npx', ['vitest', 'run', '--coverage'], { stdio: 'inherit' }).on('close', (code) =>
    resolve(code ?? 1),
  );
});
let failed = vitest !== 0;
for (const { script, code, output } of await Promise.all(beside)) {
  process.stdout.write(
    `\n── npm run ${script}: ${code === 0 ? 'passed' : `failed (exit ${code})`} ──\n${output}`,
  );
  failed ||= code !== 0;
}
process.exit(failed ? 1 : 0);
