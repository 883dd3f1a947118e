/**
 * Issue 14 items 6 and 7, issue 21 (host side): a bridge call of any size ends at once with the
 * limit; concurrent calls are bounded by bridge.maxConcurrent; a call the kernel gave up on
 * (its timeout) stops the host's command.
 */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeExecutor } from '../helpers/executor.js';
import { pidAlive, waitFor } from '../helpers/kernel.js';

const py = (code: string) => ({ language: 'py' as const, code });
const TAG = String(6_100_000 + Math.floor(Math.random() * 800_000));

function processesWith(marker: string): number[] {
  return readdirSync('/proc')
    .filter((e) => /^\d+$/.test(e))
    .filter((e) => {
      try {
        return readFileSync(`/proc/${e}/cmdline`, 'utf8').replace(/\0/g, ' ').includes(marker);
      } catch {
        return false;
      }
    })
    .map(Number)
    .filter(pidAlive);
}

describe('the size of a bridge call (item 6)', () => {
  it('a call over 16 MiB fails at once in the cell, saying the limit', async () => {
    const s = await makeExecutor({ settings: { 'bridge.completionCommand': 'cat' } }).session();
    const [r] = await s.run([{ ...py("completion('x' * 20_000_000)"), timeout: 3 }]);
    expect(r?.error?.ename).toBe('BridgeError');
    expect(r?.error?.evalue).toMatch(/at most 16777216 bytes \(16 MiB\)/);
    expect(r?.timedOut).toBeFalsy();
  });

  it('the same in a js cell', async () => {
    const s = await makeExecutor({ settings: { 'bridge.completionCommand': 'cat' } }).session();
    const [r] = await s.run([
      // (a timeout far above what sending 20 MB takes on a loaded machine: the answer is awaited)
      { language: 'js', code: "await completion('x'.repeat(20_000_000))", timeout: 60 },
    ]);
    expect(r?.error?.ename).toBe('BridgeError');
    expect(r?.error?.evalue).toMatch(/at most 16777216 bytes \(16 MiB\)/);
    expect(r?.timedOut).toBeFalsy();
    const [next] = await s.run([{ language: 'js', code: "JSON.parse(await completion('hi')).prompt" }]);
    expect(next?.text).toBe("[completion finished]\n'hi'\n");
  });

  it('the host answers an oversized line with the limit too (the kernel check bypassed)', async () => {
    const s = await makeExecutor({ settings: { 'bridge.completionCommand': 'cat' } }).session();
    const code = [
      'import sys',
      "bridge = next(m for n, m in sys.modules.items() if n.endswith('bridge') and hasattr(m, 'MAX_CALL_BYTES'))",
      'bridge.MAX_CALL_BYTES = 1 << 40',
      "completion('x' * 20_000_000)",
    ].join('\n');
    // (a timeout far above what sending 20 MB takes on a loaded machine: the answer is awaited)
    const [r] = await s.run([{ ...py(code), timeout: 60 }]);
    expect(r?.error?.ename).toBe('BridgeError');
    expect(r?.error?.evalue).toMatch(/at most 16777216 characters \(16 MiB\)/);
    // The bridge still works after the refused line.
    const [next] = await s.run([py("import json; json.loads(completion('hi'))['prompt']")]);
    expect(next?.text).toBe("[completion finished]\n'hi'\n");
  });
});

describe('concurrent bridge calls (item 7)', () => {
  it('run at most bridge.maxConcurrent commands at once; the rest wait and are answered', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'omp-bridge-limit-'));
    // Each command marks itself running, records how many ran with it, and unmarks itself.
    const command = `touch ${dir}/run.$$; ls ${dir} | grep -c '^run' > ${dir}/peak.$$; sleep 0.2; rm ${dir}/run.$$; cat`;
    const s = await makeExecutor({
      settings: { 'bridge.completionCommand': command, 'bridge.maxConcurrent': 3 },
    }).session();
    const [r] = await s.run([
      py(
        [
          'import json',
          'out = parallel([lambda i=i: json.loads(completion("c%d" % i))["prompt"] for i in range(12)], concurrency=12)',
          'out == ["c%d" % i for i in range(12)]',
        ].join('\n'),
      ),
    ]);
    expect(r?.text).toBe(`${'[completion finished]\n'.repeat(12)}True\n`);
    const peaks = readdirSync(dir)
      .filter((f) => f.startsWith('peak.'))
      .map((f) => Number(readFileSync(join(dir, f), 'utf8')));
    expect(peaks).toHaveLength(12);
    expect(Math.max(...peaks)).toBeLessThanOrEqual(3);
  });
});

describe('a call the kernel gives up on (issue 21, host side)', () => {
  it('stops the command that was answering it', async () => {
    const s = await makeExecutor({
      settings: { 'bridge.completionCommand': `sleep ${TAG}1; cat` },
    }).session();
    const running = s.run([py("completion('hi', timeout=10)")]);
    await waitFor(() => processesWith(`sleep ${TAG}1`).length > 0, 60_000, 'the command to start');
    const [r] = await running;
    expect(r?.error?.ename).toBe('BridgeError');
    expect(r?.error?.evalue).toMatch(/no answer from the host to completion\(\) within 10 s/);
    // The kernel is alive and idle; the command is stopped because the kernel said so.
    await waitFor(() => processesWith(`sleep ${TAG}1`).length === 0, 60_000, 'the command to be stopped');
    const [again] = await s.run([py('1 + 1')]);
    expect(again?.text).toBe('2\n');
  });
});
