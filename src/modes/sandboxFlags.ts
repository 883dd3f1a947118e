/**
 * The sandbox's command-line flags (`--sandbox`, `--allow-network`, `--add-writable-root`,
 * `--allow-read`, `--memory-limit`) and the settings they set. Kept apart from cli.ts; loads no engine module.
 */
import { resolve } from 'node:path';
import { type Command, InvalidArgumentError, Option } from 'commander';
import type { Settings } from '../eval/index.js';

export interface SandboxFlags {
  sandbox?: 'off' | 'read-only' | 'workspace-write';
  allowNetwork?: boolean;
  addWritableRoot?: string[];
  allowRead?: string[];
  memoryLimit?: number;
}

function megabytes(value: string): number {
  const n = Number(value);
  if (!/^\s*\d+\s*$/.test(value) || !Number.isSafeInteger(n)) {
    throw new InvalidArgumentError('must be a whole number of MB (0 for no limit)');
  }
  return n;
}

export function addSandboxOptions(program: Command): Command {
  return program
    .addOption(
      new Option(
        '--sandbox <mode>',
        'run kernels in a sandbox (bubblewrap): off, read-only or workspace-write (default: workspace-write for mcp, else off)',
      ).choices(['off', 'read-only', 'workspace-write']),
    )
    .option('--allow-network', 'let sandboxed kernels use the network')
    .option(
      '--add-writable-root <dir>',
      'a directory sandboxed kernels may write to, besides the cwd (repeatable)',
      (dir: string, previous: string[] = []) => [...previous, dir],
    )
    .option(
      '--allow-read <path>',
      'a path the sandbox hides by default (credentials such as ~/.ssh) that sandboxed kernels may read (repeatable)',
      (path: string, previous: string[] = []) => [...previous, path],
    )
    .option(
      '--memory-limit <MB>',
      'memory of a kernel and its processes, in MB (sandboxed kernels: 2048; 0 for none)',
      megabytes,
    );
}

/** The settings the sandbox flags set. */
export function sandboxOverrides(flags: SandboxFlags): Partial<Settings> {
  return {
    ...(flags.sandbox ? { 'sandbox.mode': flags.sandbox } : {}),
    ...(flags.allowNetwork ? { 'sandbox.allowNetwork': true } : {}),
    ...(flags.addWritableRoot?.length
      ? { 'sandbox.writableRoots': flags.addWritableRoot.map((dir) => resolve(dir)) }
      : {}),
    ...(flags.allowRead?.length ? { 'sandbox.allowRead': flags.allowRead.map((p) => resolve(p)) } : {}),
    ...(flags.memoryLimit !== undefined ? { 'sandbox.memoryLimitMb': flags.memoryLimit } : {}),
  };
}
