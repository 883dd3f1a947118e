/**
 * The environment filter per face (issue 43, item 3): a person's faces pass the whole environment,
 * agents' faces keep the spec's filter, the setting (or --env-filter) overrides both; a whole
 * environment still has no credentials in a sandboxed kernel.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeEnvFilter, envFilterLabel, envFilterOf, type Face } from '../../src/eval/envFilter.js';
import { hostEnvFor, kernelEnv } from '../../src/eval/launch/env.js';
import type { ResolvedPython } from '../../src/eval/launch/python.js';
import { loadSettings, SettingsError } from '../../src/eval/settings.js';

const FACES: Face[] = ['notebook', 'line', 'run', 'tool', 'mcp', 'notebook-mcp'];

describe('envFilterOf', () => {
  it('is off for the faces a person drives and on for the agents', () => {
    const on = FACES.filter((face) => envFilterOf({}, face).on);
    expect(on).toEqual(['tool', 'mcp', 'notebook-mcp']);
    expect(envFilterOf({}, 'run')).toEqual({ on: false, source: 'default' });
  });

  it('follows the setting (or the flag) in every face', () => {
    for (const face of FACES) {
      expect(envFilterOf({ 'env.filter': true }, face)).toEqual({ on: true, source: 'setting' });
      expect(envFilterOf({ 'env.filter': false }, face)).toEqual({ on: false, source: 'setting' });
    }
  });

  it('says which applies', () => {
    expect(envFilterLabel(true)).toBe('env filtered');
    expect(envFilterLabel(false)).toBe('env whole');
    expect(describeEnvFilter({})).toMatch(
      /^whole for the notebook, line mode and run; filtered .* for tool and mcp$/,
    );
    expect(describeEnvFilter({ 'env.filter': false })).toBe('whole in every command (env.filter off)');
  });
});

describe('the env.filter setting', () => {
  const withConfig = (text: string) => {
    const file = join(mkdtempSync(join(tmpdir(), 'omp-envf-')), 'config.json');
    writeFileSync(file, text);
    return { OMP_EVAL_CONFIG: file };
  };

  it('is unset by default; on/off, true/false from the file; the flag wins', () => {
    expect(loadSettings({}, withConfig('{}'))['env.filter']).toBeUndefined();
    expect(loadSettings({}, withConfig('{"env": {"filter": "off"}}'))['env.filter']).toBe(false);
    expect(loadSettings({}, withConfig('{"env.filter": true}'))['env.filter']).toBe(true);
    expect(loadSettings({ 'env.filter': true }, withConfig('{"env.filter": "off"}'))['env.filter']).toBe(
      true,
    );
  });

  it('refuses another value, naming the setting and the file', () => {
    const env = withConfig('{"env.filter": "maybe"}');
    expect(() => loadSettings({}, env)).toThrow(SettingsError);
    expect(() => loadSettings({}, env)).toThrow(
      /setting "env.filter" in .*config.json must be on or off.*got "maybe"/,
    );
  });
});

describe('hostEnvFor', () => {
  const host = {
    PATH: '/usr/bin',
    PIP_INDEX_URL: 'https://pypi.corp.example/simple',
    CUDA_VISIBLE_DEVICES: '0',
    JAVA_HOME: '/usr/lib/jvm/default',
    OMP_NUM_THREADS: '4',
    DATABASE_URL: 'postgres://app:pw@db/app',
    OPENAI_API_KEY: 'sk-1',
    GITHUB_TOKEN: 'gh',
  };

  it('filtered: the allowlist only (the default)', () => {
    expect(hostEnvFor(host)).toEqual({ PATH: '/usr/bin' });
    expect(hostEnvFor(host, { filter: true, pass: ['JAVA_HOME'] })).toEqual({
      PATH: '/usr/bin',
      JAVA_HOME: '/usr/lib/jvm/default',
    });
  });

  it('whole: every variable, credentials too, as the shell has them', () => {
    expect(hostEnvFor(host, { filter: false })).toEqual(host);
  });

  it('whole but sandboxed: no credential by name or value, unless passed by name', () => {
    const { DATABASE_URL: _, OPENAI_API_KEY: __, GITHUB_TOKEN: ___, ...rest } = host;
    expect(hostEnvFor(host, { filter: false, sandboxed: true })).toEqual(rest);
    expect(hostEnvFor(host, { filter: false, sandboxed: true, pass: ['GITHUB_TOKEN'] })).toEqual({
      ...rest,
      GITHUB_TOKEN: 'gh',
    });
  });

  it("kernelEnv adds the kernel's own variables to either", () => {
    const python: ResolvedPython = {
      source: 'PATH',
      path: 'p',
      executable: 'p',
      version: [3, 8, 0],
      tried: [],
    };
    expect(kernelEnv(host, python, { filter: false })).toMatchObject({
      PIP_INDEX_URL: host.PIP_INDEX_URL,
      PYTHONUNBUFFERED: '1',
      MPLBACKEND: 'Agg',
    });
    expect(kernelEnv(host, python).PIP_INDEX_URL).toBeUndefined();
  });
});
