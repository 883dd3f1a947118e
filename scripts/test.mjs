// `npm test`: the linters and the build, then the type check, vitest's unit and integration tiers
// (with coverage) and the Python tests side by side. The other tiers (e2e, oracle, load, sandbox)
// have scripts of their own (package.json), which .ci/run runs after this. Vitest keeps both cores busy but not all the time (its tests wait on
// kernels and servers); the type check and the Python tests fill that time instead of adding
// theirs after it. Their output is printed after vitest's, each under its name; the command fails
// if any part fails.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

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

// The tests' temp files (a run writes half a gigabyte: artifacts, spills, scratch folders) go to
// a folder of this run's, removed at its end, so that runs do not pile them up on the disk. It is
// as /tmp is (other users' tests write to it) and its name is short (Unix socket paths under it);
// vitest's global setup (test/globalSetup.ts) finds it and makes none of its own.
const runTmp = mkdtempSync(join(tmpdir(), 'omp-test-'));
chmodSync(runTmp, 0o1777);
process.env.TMPDIR = runTmp;
process.env.OMP_EVAL_TEST_TMP = runTmp;

const beside = [quietly('typecheck'), quietly('test:py')];
const vitest = await new Promise((resolve) => {
  const tiers = ['--project', 'unit*', '--project', 'integration*'];
  spawn('npx', ['vitest', 'run', '--coverage', ...tiers], { stdio: 'inherit' }).on('close', (code) =>
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
rmSync(runTmp, { recursive: true, force: true });
process.exit(failed ? 1 : 0);
