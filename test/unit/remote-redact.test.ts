/**
 * A Jupyter server's credentials never reach a message: not the password in the URL's user info,
 * not the token (in the URL's query, from --token or from what a library said). One test per path
 * by which the URL or the token gets into text the agent or the user reads.
 */
import { describe, expect, it } from 'vitest';
import { KernelStartError } from '../../src/eval/kernel/types.js';
import { hasCredentials, redactText, redactUrl, scrub } from '../../src/eval/remote/redact.js';
import { parseServerUrl, RemoteServer, serverLabel } from '../../src/eval/remote/server.js';
import { validateSettings } from '../../src/eval/settings.js';

const PASSWORD = 'hunter2-pw';
const TOKEN = 'f00dcafe1234abcd';

/** What `fn` threw, as text. */
function thrown(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('nothing was thrown');
}

describe('redactUrl and redactText', () => {
  it('drop the user info and the credential query parameters, keeping host, path and the rest', () => {
    expect(redactUrl(`http://ann:${PASSWORD}@gpu:8888/user/ann/?token=${TOKEN}&x=1`)).toBe(
      'http://gpu:8888/user/ann/?x=1',
    );
    expect(redactUrl(`https://hub.example.org/?access_token=${TOKEN}`)).toBe('https://hub.example.org/');
    expect(redactUrl('http://127.0.0.1:8888/')).toBe('http://127.0.0.1:8888/');
  });

  it('scrub text that is no URL alike', () => {
    const text = `fetch failed for http://ann:${PASSWORD}@[bad/api?token=${TOKEN} (see log)`;
    const clean = redactText(text);
    expect(clean).not.toContain(PASSWORD);
    expect(clean).not.toContain(TOKEN);
    expect(clean).toContain('(see log)');
    expect(redactUrl(`ann:${PASSWORD}@gpu:8888`)).toBe('gpu:8888');
    expect(redactUrl(`ann:${PASSWORD}@[`)).not.toContain(PASSWORD);
  });

  it('hasCredentials sees user info and a token, not a plain URL', () => {
    expect(hasCredentials(`http://ann:${PASSWORD}@gpu/`)).toBe(true);
    expect(hasCredentials(`http://gpu/?token=${TOKEN}`)).toBe(true);
    expect(hasCredentials('http://gpu:8888/lab?x=1')).toBe(false);
  });

  it('scrub replaces each secret, plain and URL-encoded, and leaves short ones alone', () => {
    expect(scrub(`a ${TOKEN} b ${encodeURIComponent('p@ss/word')}`, [TOKEN, 'p@ss/word'])).toBe('a … b …');
    expect(scrub('xyz', ['x', undefined])).toBe('xyz');
  });
});

describe('messages that name the server', () => {
  it('serverLabel names host and path only, even for a URL that is refused', () => {
    expect(serverLabel(`http://ann:${PASSWORD}@gpu:8888/user/ann/?token=${TOKEN}`)).toBe('gpu:8888/user/ann');
    expect(serverLabel(`ftp://ann:${PASSWORD}@gpu/`)).toBe('gpu');
    const broken = serverLabel(`http://ann:${PASSWORD}@[::1/?token=${TOKEN}`);
    expect(broken).not.toContain(PASSWORD);
    expect(broken).not.toContain(TOKEN);
  });

  it('a URL that does not parse is named without its credentials', () => {
    const message = thrown(() => parseServerUrl(`http://ann:${PASSWORD}@[::1/?token=${TOKEN}`));
    expect(message).toMatch(/--jupyter needs a server URL/);
    expect(message).not.toContain(PASSWORD);
    expect(message).not.toContain(TOKEN);
  });

  it('a URL of another scheme is named without its credentials', () => {
    const message = thrown(() => parseServerUrl(`ftp://ann:${PASSWORD}@gpu/?token=${TOKEN}`));
    expect(message).toMatch(/needs an http:\/\/ or https:\/\/ URL, got "ftp:\/\/gpu\/"/);
  });

  it('a password in the URL is refused, and the message does not repeat it', () => {
    let err: unknown;
    try {
      parseServerUrl(`http://ann:${PASSWORD}@gpu:8888/?token=${TOKEN}`);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(KernelStartError);
    const message = (err as Error).message;
    expect(message).toMatch(
      /user name or password in it \(not shown\).*use http:\/\/gpu:8888\/ .*--token or JUPYTER_TOKEN/,
    );
    expect(message).not.toContain(PASSWORD);
    expect(message).not.toContain('ann');
    expect(message).not.toContain(TOKEN);
  });

  it("a REST failure's message is scrubbed of the token, the URL's token and a password", () => {
    const server = new RemoteServer({ url: `http://gpu:8888/?token=${TOKEN}` });
    const fromLibrary = Object.assign(
      new Error(`Invalid response for http://gpu:8888/api/kernels?token=${TOKEN}: token ${TOKEN} refused`),
      { response: { status: 500 } },
    );
    const message = server.describeError(fromLibrary, 'listing its kernels').message;
    expect(message).toMatch(/the Jupyter server at gpu:8888 answered HTTP 500 while listing its kernels/);
    expect(message).not.toContain(TOKEN);

    const given = new RemoteServer({ url: 'http://gpu:8888/', token: TOKEN });
    const network = new Error(`connect ECONNREFUSED (Authorization: token ${TOKEN})`);
    const unreachable = given.describeError(network, 'starting a kernel').message;
    expect(unreachable).toMatch(
      /cannot reach the Jupyter server at gpu:8888 while starting a kernel: connect ECONNREFUSED/,
    );
    expect(unreachable).not.toContain(TOKEN);
  });

  it('a bad jupyter.url or jupyter.token setting is reported without the credential', () => {
    const url = thrown(() => validateSettings({ jupyter: { url: `ftp://ann:${PASSWORD}@gpu/` } }, 'flags'));
    expect(url).toMatch(/setting "jupyter.url" in flags must be an http/);
    expect(url).not.toContain(PASSWORD);
    const bare = thrown(() => validateSettings({ 'jupyter.url': `ann:${PASSWORD}@gpu:8888` }, 'flags'));
    expect(bare).toMatch(/got "gpu:8888"/);
    const token = thrown(() => validateSettings({ jupyter: { token: 123456789 } }, '/c.json'));
    expect(token).toMatch(/setting "jupyter.token" in \/c.json must be a string, got a number \(not shown\)/);
    expect(token).not.toContain('123456789');
  });
});
