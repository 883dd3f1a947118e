/**
 * The layers of docs/architecture.md (issue 44), checked by `npm run lint`: data flows
 * cli → front end (tui, modes) → engine (src/eval) → kernel process. No import cycle anywhere.
 */
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
    {
      name: 'notebook-starts-no-process',
      comment: 'The notebook talks to the engine; the engine starts the processes.',
      severity: 'error',
      from: { path: '^src/tui/' },
      to: { path: '^(node:)?child_process$|(^|/)node_modules/execa/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^src/.*\\.d\\.ts$|^src/eval/schemas/validators\\.js$' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    combinedDependencies: false,
  },
};
