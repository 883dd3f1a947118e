// `npm run test:stress`: npm test's vitest tiers (unit and integration) while `stress-ng --cpu 8`
// loads every core four times over, several times in a row (default 3; `npm run test:stress --
// --runs 1`; other arguments go to vitest). Tests must wait for conditions, not for time: a
// loaded machine may only make them slower. Needs Debian's stress-ng.
import { spawn, spawnSync } from 'node:child_process';

const at = process.argv.indexOf('--runs');
const runs = at === -1 ? 3 : Number(process.argv[at + 1]);
const extra = process.argv.slice(2).filter((arg, i, all) => arg !== '--runs' && all[i - 1] !== '--runs');

if (spawnSync('stress-ng', ['--version'], { stdio: 'ignore' }).error) {
  process.stderr.write('test:stress needs stress-ng (apt-get install stress-ng)\n');
  process.exit(2);
}
const build = spawnSync('npm', ['run', 'build'], { stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);

const load = spawn('stress-ng', ['--cpu', '8', '--quiet'], { stdio: 'ignore' });
const stopLoad = () => {
  if (load.exitCode === null) load.kill('SIGTERM');
};
process.on('exit', stopLoad);
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    stopLoad();
    process.exit(130);
  });
}

let failed = 0;
for (let run = 1; run <= runs && !failed; run++) {
  process.stdout.write(`\n── test:stress run ${run} of ${runs} (stress-ng --cpu 8) ──\n`);
  const started = Date.now();
  const tiers = extra.length ? extra : ['--project', 'unit*', '--project', 'integration*'];
  const result = spawnSync('npx', ['vitest', 'run', ...tiers], { stdio: 'inherit' });
  process.stdout.write(
    `── run ${run}: ${result.status === 0 ? 'passed' : 'FAILED'} in ${Math.round((Date.now() - started) / 1000)} s ──\n`,
  );
  if (result.status !== 0) failed = run;
}
stopLoad();
process.exit(failed ? 1 : 0);
