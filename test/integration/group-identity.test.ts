/**
 * A process group's id outlives nothing: once a kernel (or a probe, or a bridge command) was
 * reaped and nothing of its group is left, its id may be a new program's group. The host's late
 * clean-up (reaping what a dead kernel left, killing what a finished command left) must then
 * signal nothing. A group is the old one only while a member started by the time its leader ended.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { reapGroup } from '../../src/eval/process/lifetime.js';
import { bootTicks, pidAlive, sameGroup, signalGroup } from '../../src/eval/process/processGroup.js';
import { waitFor } from '../helpers/kernel.js';

const started: ChildProcess[] = [];
afterEach(() => {
  for (const child of started.splice(0)) child.kill('SIGKILL');
});

/** A detached sleeper: a group (and session) of its own, as a kernel or a command has. */
function groupLeader(): ChildProcess {
  const child = spawn('/bin/sleep', ['600'], { detached: true, stdio: 'ignore' });
  started.push(child);
  return child;
}

/** bootTicks() once the clock is past it: what a leader that ended before now would have. */
async function anEndBefore(): Promise<number> {
  const ended = bootTicks() as number;
  await waitFor(() => (bootTicks() as number) > ended + 2, 60_000, 'the clock to move on');
  return ended;
}

describe('a group id used again', () => {
  it('is not signalled when its members all started after the old leader ended', async () => {
    const ended = await anEndBefore();
    const newcomer = groupLeader();
    const pid = newcomer.pid as number;
    await waitFor(() => pidAlive(pid), 60_000, 'the newcomer');
    expect(sameGroup(pid, ended)).toBe(false);
    expect(signalGroup(pid, 'SIGKILL', ended)).toBe(false);
    await reapGroup(pid, 10, ended);
    expect(pidAlive(pid)).toBe(true);
  });

  it('is signalled while a member started by the time the leader ended (what the kernel left)', async () => {
    const leftover = groupLeader();
    const pid = leftover.pid as number;
    await waitFor(() => pidAlive(pid), 60_000, 'the leftover');
    const ended = await anEndBefore(); // the leader ended after the leftover started
    expect(sameGroup(pid, ended)).toBe(true);
    await reapGroup(pid, 10, ended);
    await waitFor(() => !pidAlive(pid), 60_000, 'the leftover to be reaped');
  });
});
