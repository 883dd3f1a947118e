import { describe, expect, it } from 'vitest';
import { filterEnv, kernelEnv } from '../../src/eval/launch/env.js';

describe('filterEnv', () => {
  const host = {
    PATH: '/usr/bin',
    HOME: '/home/u',
    LANG: 'C.UTF-8',
    LC_ALL: 'C',
    XDG_CONFIG_HOME: '/home/u/.config',
    PI_PY: '1',
    VIRTUAL_ENV: '/venv',
    PYTHONPATH: '/lib',
    OPENAI_API_KEY: 'sk-1',
    ANTHROPIC_API_KEY: 'sk-2',
    GEMINI_API_KEY: 'g',
    AWS_SECRET_ACCESS_KEY: 'a',
    npm_config_cache: '/x',
    SOME_RANDOM_VAR: 'y',
  };

  it('keeps the allowlist and allowed prefixes, and drops the rest', () => {
    expect(filterEnv(host)).toEqual({
      PATH: '/usr/bin',
      HOME: '/home/u',
      LANG: 'C.UTF-8',
      LC_ALL: 'C',
      XDG_CONFIG_HOME: '/home/u/.config',
      PI_PY: '1',
      VIRTUAL_ENV: '/venv',
      PYTHONPATH: '/lib',
    });
  });

  it("never passes the spec's denylisted API keys, even under an allowed prefix or name", () => {
    // Without the credential rule each of these would pass: they start with an allowed prefix.
    const keys = [
      'OPENAI_API_KEY',
      'ANTHROPIC_API_KEY',
      'GEMINI_API_KEY',
      'GITHUB_TOKEN',
      'AWS_SECRET_ACCESS_KEY',
    ];
    const prefixed = Object.fromEntries(
      keys.flatMap((k) => [
        [`PI_${k}`, 'secret'],
        [`XDG_${k}`, 'secret'],
      ]),
    );
    expect(filterEnv({ ...host, ...prefixed, XDG_X: 'ok' })).toEqual({ ...filterEnv(host), XDG_X: 'ok' });
  });

  it('adds the kernel settings and prepends a venv bin to PATH', () => {
    const env = kernelEnv(host, {
      source: 'VIRTUAL_ENV',
      path: '/venv/bin/python',
      binDir: '/venv/bin',
      executable: '/venv/bin/python',
      version: [3, 11, 0],
      tried: [],
    });
    expect(env.PATH).toBe('/venv/bin:/usr/bin');
    expect(env).toMatchObject({ PYTHONUNBUFFERED: '1', PYTHONIOENCODING: 'utf-8', MPLBACKEND: 'Agg' });
    expect(
      kernelEnv(
        { ...host, MPLBACKEND: 'svg' },
        { source: 'PATH', path: 'p', executable: 'p', version: [3, 8, 0], tried: [] },
      ),
    ).toMatchObject({ MPLBACKEND: 'svg', PATH: '/usr/bin' });
  });
});

describe('credentials', () => {
  it('drops names that look like credentials, even with an allowed prefix, unless passed', async () => {
    const { filterEnv, looksLikeCredential } = await import('../../src/eval/launch/env.js');
    const host = {
      PATH: '/bin',
      PI_SERVICE_TOKEN: 't',
      PI_DB_PASSWORD: 'p',
      PI_APP_SECRET_KEY: 's',
      PI_MY_API_KEY: 'k',
      XDG_HARMLESS: 'h',
      CUSTOM_VAR: 'c',
    };
    expect(filterEnv(host)).toEqual({ PATH: '/bin', XDG_HARMLESS: 'h' });
    expect(filterEnv(host, ['PI_SERVICE_TOKEN', 'CUSTOM_VAR', 'OPENAI_API_KEY'])).toEqual({
      PATH: '/bin',
      XDG_HARMLESS: 'h',
      PI_SERVICE_TOKEN: 't',
      CUSTOM_VAR: 'c',
    });
    expect(
      ['GITHUB_TOKEN', 'aws_secret_access_key', 'Password', 'X_API_KEY'].every(looksLikeCredential),
    ).toBe(true);
    expect(['TOKENIZERS_PARALLELISM', 'PATH', 'SECRETARY'].some(looksLikeCredential)).toBe(false);
  });
});

describe('credentials in values, and the PI_ names (issue 14 item 15)', () => {
  it('drops a variable whose value holds a credential, whatever its name, unless passed', async () => {
    const { filterEnv, valueLooksLikeCredential } = await import('../../src/eval/launch/env.js');
    const host = {
      PATH: '/usr/bin:/bin',
      HTTPS_PROXY: 'http://user:pass@proxy:3128',
      https_proxy: 'http://proxy:3128',
      HTTP_PROXY: 'http://token@proxy',
      PYTHONPATH: '/lib',
      XDG_TOKENLESS: 'ghp_0123456789abcdefghijABCDEFGHIJ',
      LC_NOTE: 'sk-proj-0123456789abcdefghijklmn',
    };
    expect(filterEnv(host)).toEqual({
      PATH: '/usr/bin:/bin',
      https_proxy: 'http://proxy:3128',
      PYTHONPATH: '/lib',
    });
    expect(filterEnv(host, ['HTTPS_PROXY'])).toMatchObject({ HTTPS_PROXY: 'http://user:pass@proxy:3128' });
    for (const harmless of [
      'git@github.com:a/b',
      'C.UTF-8',
      'xterm-256color',
      '/home/task-runner/bin',
      'mailto:a@b',
    ])
      expect(valueLooksLikeCredential(harmless)).toBe(false);
    for (const secret of ['postgres://app:pw@db/app', 'AKIAABCDEFGHIJKLMNOP', 'xoxb-1234567890-abc'])
      expect(valueLooksLikeCredential(secret)).toBe(true);
  });

  it("passes only the engine's own PI_ switches", async () => {
    const { filterEnv } = await import('../../src/eval/launch/env.js');
    const host = { PI_PY: '1', PI_JS: '0', PI_PYTHON_IPC_TRACE: '1', PI_AUTH: 'x', PI_CONFIG: 'y' };
    expect(filterEnv(host)).toEqual({ PI_PY: '1', PI_JS: '0', PI_PYTHON_IPC_TRACE: '1' });
  });
});
