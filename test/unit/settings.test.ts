import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  backendAvailability,
  configPath,
  DEFAULT_SETTINGS,
  loadSettings,
  parseBooleanFlag,
  readConfigFile,
  SettingsError,
} from '../../src/eval/settings.js';

function configWith(text: string): NodeJS.ProcessEnv {
  const dir = mkdtempSync(join(tmpdir(), 'omp-cfg-'));
  const file = join(dir, 'config.json');
  writeFileSync(file, text);
  return { OMP_EVAL_CONFIG: file };
}

describe('settings', () => {
  it('finds the config file in the user config directory', () => {
    expect(configPath({ HOME: '/h' })).toBe('/h/.config/omp-eval/config.json');
    expect(configPath({ XDG_CONFIG_HOME: '/x', HOME: '/h' })).toBe('/x/omp-eval/config.json');
  });

  it('reads nested and dotted keys; flags override the file', () => {
    const env = configWith(
      JSON.stringify({ python: { interpreter: '/opt/py', kernelMode: 'per-call' }, 'eval.timeout': 99999 }),
    );
    expect(loadSettings({}, env)).toEqual({
      ...DEFAULT_SETTINGS,
      'python.interpreter': '/opt/py',
      'python.kernelMode': 'per-call',
      'eval.timeout': 3600,
    });
    expect(loadSettings({ 'python.kernelMode': 'session' }, env)['python.kernelMode']).toBe('session');
  });

  it('a missing file is no settings; a bad one is an error naming the setting and the file', () => {
    expect(readConfigFile('/no/such/config.json')).toEqual({});
    const bad = configWith('{"python": {"kernelMode": "forever"}}');
    expect(() => loadSettings({}, bad)).toThrow(
      /setting "python.kernelMode" in .*config.json must be "session" or "per-call", got "forever"/,
    );
    expect(() => loadSettings({}, configWith('{nope'))).toThrow(/is not valid JSON/);
    expect(() => loadSettings({}, configWith('[]'))).toThrow(/must hold a JSON object/);
    expect(() => loadSettings({}, configWith('{"eval": {"pyy": true}}'))).toThrow(
      /unknown setting "eval.pyy"/,
    );
    expect(() => loadSettings({}, configWith('{"eval": {"timeout": -1}}'))).toThrow(
      /eval.timeout.*number of seconds/,
    );
    expect(() => loadSettings({}, configWith('{"eval": {"py": "maybe"}}'))).toThrow(SettingsError);
  });

  it('bridge.maxConcurrent: 4 by default, a whole number of calls from the file', () => {
    expect(DEFAULT_SETTINGS['bridge.maxConcurrent']).toBe(4);
    expect(loadSettings({}, configWith('{"bridge": {"maxConcurrent": 2}}'))['bridge.maxConcurrent']).toBe(2);
    expect(() => loadSettings({}, configWith('{"bridge": {"maxConcurrent": 0}}'))).toThrow(
      /setting "bridge.maxConcurrent" .* must be a whole number of calls \(1..256\), got 0/,
    );
  });

  it('mcp.maxSessions and mcp.maxKernels: 16 and 32 by default, whole numbers from the file', () => {
    expect(DEFAULT_SETTINGS['mcp.maxSessions']).toBe(16);
    expect(DEFAULT_SETTINGS['mcp.maxKernels']).toBe(32);
    const set = loadSettings({}, configWith('{"mcp": {"maxSessions": 4, "maxKernels": 6}}'));
    expect([set['mcp.maxSessions'], set['mcp.maxKernels']]).toEqual([4, 6]);
    expect(() => loadSettings({}, configWith('{"mcp": {"maxKernels": 0}}'))).toThrow(
      /setting "mcp.maxKernels" .* must be a whole number of kernels \(1..10000\), got 0/,
    );
    expect(() => loadSettings({}, configWith('{"mcp": {"maxSessions": 2.5}}'))).toThrow(
      /setting "mcp.maxSessions" .* must be a whole number of sessions/,
    );
  });

  it('parses boolean env flags and lets each override only its own setting', () => {
    expect(parseBooleanFlag('YES', 'X')).toBe(true);
    expect(parseBooleanFlag('off', 'X')).toBe(false);
    expect(parseBooleanFlag('', 'X')).toBeUndefined();
    expect(() => parseBooleanFlag('2', 'PI_PY')).toThrow(/PI_PY must be a boolean/);
    const settings = { ...DEFAULT_SETTINGS, 'eval.js': false };
    expect(backendAvailability(settings, { PI_PY: '0' })).toEqual({ py: false, js: false });
    expect(backendAvailability(settings, { PI_JS: 'true' })).toEqual({ py: true, js: true });
  });
});
