/**
 * node:crypto, loaded at its first use. Loading it costs a call's start-up some 6-10 ms of CPU;
 * the modules that `run` and `tool` load before their kernel's process is spawned
 * (dist/cli/launch.js: the recipe, the kernel's files, the code cache) hash only after the spawn,
 * if at all, and must not load it as they load.
 */
import { createRequire } from 'node:module';

let loaded: typeof import('node:crypto') | undefined;

export function nodeCrypto(): typeof import('node:crypto') {
  loaded ??= createRequire(import.meta.url)('node:crypto') as typeof import('node:crypto');
  return loaded;
}
