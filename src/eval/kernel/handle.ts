/**
 * What the executor holds of a kernel, whatever runs it: a local process (`Kernel`) or a kernel on
 * a Jupyter server (`RemoteKernel`, src/eval/remote). It is the Kernel class's public face, so a
 * method added to Kernel is one every other kind of kernel must have too.
 */
import type { Kernel } from './kernel.js';
import type { KernelOptions } from './types.js';

/** The language of a remote kernel (kernel_info's language_info) and where it runs. */
export interface RemoteKernelInfo {
  /** The server as the user gave it, without credentials (`127.0.0.1:8888`, `hub.example.org/user/ann`). */
  server: string;
  kernelName: string;
  kernelId: string;
  /** kernel_info's language_info (name, version, mimetype, file_extension, ...). */
  languageInfo?: Record<string, unknown> & { name: string };
  /** The kernelspec, as a notebook file names it. */
  kernelspec?: { name: string; display_name: string; language: string };
}

export type KernelHandle = { readonly [K in keyof Kernel]: Kernel[K] } & {
  /** Set for a kernel on a Jupyter server. */
  readonly remote?: RemoteKernelInfo;
};

/** Makes a kernel of the language in `options` in place of a local process. */
export type KernelFactory = (options: KernelOptions) => Promise<KernelHandle>;
