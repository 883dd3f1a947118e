/**
 * --kernel-name picks a kernelspec other than the server's default, and a kernel that is not
 * IPython works: its language comes from kernel_info. The "shout" kernel (test/fixtures) stands
 * for IR or IJulia.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toNotebook } from '../../src/tui/session/save.js';
import { makeExecutor } from '../helpers/executor.js';
import { type JupyterServer, runningKernels, SYSTEM_PYTHON, startJupyterServer } from '../helpers/jupyter.js';

const SHOUT = fileURLToPath(new URL('../fixtures/shout_kernel.py', import.meta.url));
const FORGETFUL = fileURLToPath(new URL('../fixtures/forgetful_kernel.py', import.meta.url));

let server: JupyterServer;

beforeAll(async () => {
  server = await startJupyterServer({
    kernelspecs: {
      shout: {
        argv: [SYSTEM_PYTHON, SHOUT, '-f', '{connection_file}'],
        display_name: 'Shout',
        language: 'shout',
      },
      forgetful: {
        argv: [SYSTEM_PYTHON, FORGETFUL, '-f', '{connection_file}'],
        display_name: 'Forgetful',
        language: 'python',
      },
    },
  });
});
afterAll(async () => {
  await server?.stop();
});

describe('remote kernel: a kernelspec by name, of any language', () => {
  it('starts the named kernel, runs its cells and takes its language from kernel_info', async () => {
    const ex = makeExecutor({
      settings: { 'jupyter.url': server.url, 'jupyter.token': server.token, 'jupyter.kernelName': 'shout' },
    });
    const s = await ex.session();
    const [result] = await s.run([{ language: 'py', code: 'hello there' }]);
    expect(result?.status).toBe('ok');
    expect(result?.text).toBe('HELLO THERE\n');
    const remote = s.kernel?.remote;
    expect(remote?.kernelName).toBe('shout');
    expect(remote?.kernelspec).toEqual({ name: 'shout', display_name: 'Shout', language: 'shout' });
    expect(remote?.languageInfo).toMatchObject({ name: 'shout', file_extension: '.shout' });
    expect(await runningKernels(server)).toEqual([remote?.kernelId]);
    // A notebook saved from this session is one for the shout kernel.
    const nb = JSON.parse(toNotebook([], { language: 'py', ...(remote ? { remote } : {}) }));
    expect(nb.metadata.kernelspec.name).toBe('shout');
    expect(nb.metadata.language_info.name).toBe('shout');
    await ex.dispose();
    expect(await runningKernels(server)).toEqual([]);
  });

  it('a kernel_info reply that is lost: the client asks again, and the kernel starts', async () => {
    const ex = makeExecutor({
      settings: {
        'jupyter.url': server.url,
        'jupyter.token': server.token,
        'jupyter.kernelName': 'forgetful',
      },
    });
    const s = await ex.session();
    // (asking once, the start waits for its 60 s deadline and fails)
    const [result] = await s.run([{ language: 'py', code: '6 * 7' }]);
    expect(result?.text).toBe('42\n');
    expect(result?.status).toBe('ok');
    expect(result?.text).toBe('42\n');
    await ex.dispose();
    expect(await runningKernels(server)).toEqual([]);
  });
});
