/**
 * The engine's early entry, a second face of index.ts: the part of the public API a command may
 * call before it loads the engine (src/eval/index.ts) and its dependencies. `run` and `tool` load
 * their settings here and spawn their Python kernel's process, which then starts while the rest of
 * the engine loads (the spawn itself is launch/prestart.ts). Everything here is also exported by
 * index.ts (test/unit/layers.test.ts). Front ends may import it (.dependency-cruiser.cjs).
 */

export { envFilterOf } from './envFilter.js';
export { type PrestartedKernel, prestartPython } from './launch/prestart.js';
export { streamLogger } from './logger.js';
export { sandboxOf } from './sandbox/settings.js';
export { loadSettings, SettingsError } from './settings.js';
