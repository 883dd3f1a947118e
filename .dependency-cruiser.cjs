/**
 * The layers of docs/architecture.md (issue 44), checked by `npm run lint`: data flows
 * cli → front end (tui, modes) → engine (src/eval) → kernel process. No import cycle anywhere.
 * Inside the engine: executor → kernel client (kernel/) → launch (launch/) → sandbox → process/.
 */

/** The engine's layers from the top: each imports nothing of those above it. */
const engineLayers = [
  [
    'settings-below-the-engine',
    "The settings are read before the engine loads (start.ts): no executor, kernel, launch or process module (a cell timeout's bounds are cellTimeout.ts).",
    '^src/eval/settings\\.ts$',
    { path: '^src/eval/(executor|kernel|launch|process)/' },
  ],
  [
    'kernels-below-the-executor',
    'The launch and the kernel client know no executor and no remote kernel: those use them.',
    '^src/eval/(launch|kernel)/',
    { path: '^src/eval/(executor|remote)/' },
  ],
  [
    'launch-below-the-kernel-client',
    'src/eval/launch/ spawns a kernel process; the kernel client (src/eval/kernel/) drives it. Types only may go up (spawn.ts reads KernelOptions): they vanish when compiled.',
    '^src/eval/launch/',
    { path: '^src/eval/kernel/', dependencyTypesNot: ['type-only'] },
  ],
  [
    'sandbox-knows-no-kernel',
    'The sandbox wraps a command line: it takes its helpers from src/eval/process/, never from the launch, the kernel client or the executor.',
    '^src/eval/sandbox/',
    { path: '^src/eval/(kernel|launch|executor|remote)/' },
  ],
  [
    'process-helpers-know-no-kernel',
    'src/eval/process/ (process groups, the host guard, lifetime, descriptors, PATH lookup) is the lowest of the engine: the sandbox, the launch, the kernel client and the executor use it; it uses none of them.',
    '^src/eval/process/',
    {
      path: '^src/eval/(kernel|launch|sandbox|executor|remote)/|^src/eval/(index|start|quickstart|tool|settings)\\.ts$',
    },
  ],
].map(([name, comment, from, to]) => ({ name, comment, severity: 'error', from: { path: from }, to }));

module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      comment:
        'An import cycle hides which module owns what; break it with a module of its own. (Imports of types only vanish when compiled: they may go both ways.)',
      severity: 'error',
      from: {},
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
    {
      name: 'front-ends-through-the-engine-index',
      comment:
        'Front ends reach the engine only through src/eval/index.ts (start.ts and quickstart.ts are its early parts, loaded before the rest).',
      severity: 'error',
      from: { path: '^src/(tui|modes)/|^src/(cli|main)\\.ts$' },
      to: { path: '^src/eval/', pathNot: '^src/eval/(index|start|quickstart)\\.ts$' },
    },
    {
      name: 'engine-imports-no-front-end',
      comment: 'The engine knows no terminal: it could serve a web page tomorrow.',
      severity: 'error',
      from: { path: '^src/eval/' },
      to: { path: '^src/(tui|modes)/|^src/(cli|main)\\.ts$' },
    },
    // The notebook's helpers (docs/architecture.md, src/tui): text at the bottom, rendering on it,
    // session on rendering; terminal and runtime beside them. None reaches up into the app
    // (hooks, commands, App.tsx, index.tsx), which is what puts them together.
    {
      name: 'tui-text-at-the-bottom',
      comment:
        "src/tui/text imports nothing else of ours: everything draws with it, and the Ink bundle puts it in place of Ink's own modules.",
      severity: 'error',
      from: { path: '^src/tui/text/' },
      to: { path: '^src/', pathNot: '^src/tui/text/' },
    },
    {
      name: 'tui-runtime-on-its-own',
      comment:
        'src/tui/runtime tunes the process (V8, the heap) before Ink loads: it imports nothing of ours.',
      severity: 'error',
      from: { path: '^src/tui/runtime/' },
      to: { path: '^src/', pathNot: '^src/tui/runtime/' },
    },
    {
      name: 'tui-rendering-below-session',
      comment:
        'Rendering makes output into what the screen shows; it knows no session, terminal, process tuning, keys or app.',
      severity: 'error',
      from: { path: '^src/tui/rendering/' },
      to: { path: '^src/tui/(session|terminal|runtime|keys|hooks|commands)/|^src/tui/(App|index)\\.tsx$' },
    },
    {
      name: 'tui-terminal-knows-no-cells',
      comment:
        'src/tui/terminal talks to the terminal (and Ink) and measures text; cells, their output and the engine are not its business.',
      severity: 'error',
      from: { path: '^src/tui/terminal/' },
      to: {
        path: '^src/tui/(rendering|session|runtime|state|components|keys|hooks|commands)/|^src/tui/(App|index)\\.tsx$|^src/eval/',
      },
    },
    {
      name: 'tui-session-below-the-app',
      comment:
        'src/tui/session keeps and writes what a session makes; it draws through rendering, and knows no terminal, keys or app.',
      severity: 'error',
      from: { path: '^src/tui/session/' },
      to: { path: '^src/tui/(terminal|runtime|components|keys|hooks|commands)/|^src/tui/(App|index)\\.tsx$' },
    },
    {
      name: 'notebook-starts-no-process',
      comment: 'The notebook talks to the engine; the engine starts the processes.',
      severity: 'error',
      from: { path: '^src/tui/' },
      to: { path: '^(node:)?child_process$|(^|/)node_modules/execa/' },
    },
    ...engineLayers,
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^src/.*\\.d\\.ts$|^src/eval/schemas/validators\\.js$' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    combinedDependencies: false,
  },
};
