/**
 * The executor's py kernels on a Jupyter server (`--jupyter URL`): started there for the session,
 * or the running kernel `--kernel-id` names, attached to with its state intact. A later kernel of
 * the same session (after /restart, a `reset`, a per-call run) is a fresh one: a new kernel, or the
 * attached kernel restarted through the server. Nothing here loads the client library: it is
 * loaded when the first kernel is made.
 */
import type { KernelFactory } from '../kernel/handle.js';
import type { KernelOptions } from '../kernel/types.js';
import { silentLogger } from '../logger.js';
import type { Settings } from '../settings.js';
import { RemoteKernel } from './remoteKernel.js';
import { type RemoteOptions, RemoteServer } from './server.js';

/** The remote options the settings give (flags, config file, JUPYTER_TOKEN), if any. */
function remoteOptionsOf(settings: Partial<Settings>, env: NodeJS.ProcessEnv): RemoteOptions | undefined {
  const url = settings['jupyter.url'];
  if (!url) return undefined;
  const token = settings['jupyter.token'] ?? env.JUPYTER_TOKEN;
  const kernelName = settings['jupyter.kernelName'];
  const kernelId = settings['jupyter.kernelId'];
  return {
    url,
    ...(token ? { token } : {}),
    ...(kernelName ? { kernelName } : {}),
    ...(kernelId ? { kernelId } : {}),
  };
}

/** Makes remote kernels; `tuning` overrides timings (tests). */
export function remoteKernelFactory(
  options: RemoteOptions,
  tuning: { reconnectMs?: number; startTimeoutMs?: number } = {},
): KernelFactory {
  let server: RemoteServer | undefined;
  let previous: RemoteKernel | undefined;
  return async (kernelOptions: KernelOptions) => {
    const logger = kernelOptions.logger ?? silentLogger;
    const trace = kernelOptions.trace ?? process.env.PI_PYTHON_IPC_TRACE === '1';
    server ??= new RemoteServer(options, logger, trace);
    const { settings } = await server.client();
    const attach = options.kernelId !== undefined;
    // An attached kernel that this session let go of on purpose comes back fresh.
    const restart = attach && previous?.exit?.reason === 'shutdown';
    const kernel = options.kernelId
      ? await server.findKernel(settings, options.kernelId)
      : await server.startKernel(settings, options.kernelName);
    previous = await RemoteKernel.open({
      server,
      kernel,
      owned: !attach,
      restart,
      logger,
      trace,
      ...(kernelOptions.interruptEscalationMs
        ? { interruptEscalationMs: kernelOptions.interruptEscalationMs }
        : {}),
      ...(tuning.startTimeoutMs ? { startTimeoutMs: tuning.startTimeoutMs } : {}),
      ...(tuning.reconnectMs ? { reconnectMs: tuning.reconnectMs } : {}),
    });
    return previous;
  };
}

/** The executor's kernel factories for its settings: py kernels on the server `jupyter.url` names. */
export function remoteKernelFactories(
  settings: Partial<Settings>,
  env: NodeJS.ProcessEnv,
): Partial<Record<'py', KernelFactory>> | undefined {
  const options = remoteOptionsOf(settings, env);
  return options ? { py: remoteKernelFactory(options) } : undefined;
}
