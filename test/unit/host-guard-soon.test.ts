/**
 * A kernel's guard starts on the next turn of the event loop (after the requests written in this
 * one), not in the middle of the kernel's start: a fork of the host is slow, and the kernel runs
 * nothing of the user's before its requests come. A group released before then starts no guard.
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { guardGroup, hostGuardPid } from '../../src/eval/process/hostGuard.js';

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

const sleeper = () => spawn('sleep', ['60'], { detached: true, stdio: 'ignore' });

describe('guardGroup with soon', () => {
  it('starts no guard for a group released within the same turn', async () => {
    const child = sleeper();
    try {
      guardGroup(child.pid, { soon: true })?.release();
      await nextTurn();
      await nextTurn();
      expect(hostGuardPid()).toBeUndefined();
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('starts the guard on the next turn, and uses it for later groups', async () => {
    const a = sleeper();
    const b = sleeper();
    try {
      const ga = guardGroup(a.pid, { soon: true });
      const gb = guardGroup(b.pid, { soon: true });
      expect(hostGuardPid()).toBeUndefined();
      await nextTurn();
      const pid = hostGuardPid();
      expect(pid).toBeGreaterThan(1);
      // The same guard for a later group, started at once (no second guard).
      const c = sleeper();
      const gc = guardGroup(c.pid);
      expect(hostGuardPid()).toBe(pid);
      for (const g of [ga, gb, gc]) g?.release();
      c.kill('SIGKILL');
    } finally {
      a.kill('SIGKILL');
      b.kill('SIGKILL');
    }
  });
});
