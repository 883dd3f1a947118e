/**
 * IPython as the oracle (issue 15): the cases of IPython's own test files, each run in omp-eval's
 * kernel and in an IPython InteractiveShell side by side (test/py/oracle), compared on what a
 * user sees. At least 95% agree; every remaining difference is a listed departure, named in the
 * README's "Departures from IPython" section. Needs Debian's /usr/bin/python3 with IPython
 * (`ipython3`), which CI installs: without it this test fails, it does not skip.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ORACLE = fileURLToPath(new URL('../py/oracle/run.py', import.meta.url));
const README = fileURLToPath(new URL('../../README.md', import.meta.url));
const PYTHON = '/usr/bin/python3';

interface Report {
  agree: number;
  total: number;
  rows: { id: string; source: string; difference: string | null }[];
  departures: Record<string, string>;
}

function runOracle(): Promise<{ report: Report; stdout: string }> {
  const out = join(mkdtempSync(join(tmpdir(), 'omp-oracle-test-')), 'report.json');
  return new Promise((resolve, reject) => {
    execFile(PYTHON, [ORACLE, '--json', out], { maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err) {
        reject(
          new Error(`the oracle did not run (${PYTHON} with IPython is needed): ${err.message}\n${stderr}`),
        );
        return;
      }
      resolve({ report: JSON.parse(readFileSync(out, 'utf8')) as Report, stdout });
    });
  });
}

/** The README section's text: from its heading to the next heading of the same level. */
function departuresSection(): string {
  const readme = readFileSync(README, 'utf8');
  const start = readme.indexOf('## Departures from IPython');
  if (start < 0) return '';
  const next = readme.indexOf('\n## ', start + 1);
  return readme.slice(start, next < 0 ? undefined : next);
}

describe('IPython as the oracle', () => {
  it('agrees with IPython on at least 95% of its own test cases; the rest are listed departures', async () => {
    const { report, stdout } = await runOracle();
    const figure = stdout.split('\n')[0] ?? '';
    process.stdout.write(`${figure}\n`);
    expect(report.total).toBeGreaterThan(200);
    const differing = report.rows.filter((r) => r.difference !== null);
    const unlisted = differing
      .filter((r) => !(r.id in report.departures))
      .map((r) => `${r.id}: ${r.difference}`);
    expect(unlisted, 'differences that are not listed departures').toEqual([]);
    expect(report.agree / report.total).toBeGreaterThanOrEqual(0.95);
    const section = departuresSection();
    const reasons = [...new Set(Object.values(report.departures))];
    expect(reasons.filter((reason) => !section.includes(reason))).toEqual([]);
    const stale = Object.keys(report.departures).filter((id) =>
      report.rows.some((r) => r.id === id && !r.difference),
    );
    if (stale.length) process.stdout.write(`listed departures that now agree: ${stale.join(', ')}\n`);
  }, 900_000);
});
