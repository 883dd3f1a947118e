/**
 * The engine's public face: the only module front ends (src/cli.ts, src/modes, src/tui) import.
 * It knows nothing of terminals; front ends consume its typed events and results. Running cells:
 * createExecutor → Executor.session → Session.run; the eval tool: runEvalTool; kernels of their
 * own: Kernel.start. It gives what a front end, a test or a bench imports through it, and all
 * start.ts gives (its early part), no more.
 */

export { autoIndent, cellCompleteness, localCompleteness, needsMoreLines } from './completeness.js';
export {
  describeEnvFilter,
  envFilterLabel,
  /** @public start.ts gives it to the commands before the engine loads, and index.ts all start.ts gives */
  envFilterOf,
  type Face,
} from './envFilter.js';
export { commandBridge, resolveAgentHandle } from './executor/commandBridge.js';
export type { OutputEvent } from './executor/events.js';
export { LANGUAGES } from './executor/kernelSet.js';
export { checkCwd, createExecutor, type Executor } from './executor/registry.js';
export {
  type CellResult,
  cellResultOf,
  failedResult,
  TIMEOUT_KILLED_NOTICE,
  TIMEOUT_NOTICE,
  withoutToolAdvice,
} from './executor/results.js';
export type { Session } from './executor/session.js';
export type { ExecutorOptions, RunOptions } from './executor/types.js';
export { ExecutorError } from './executor/types.js';
export type { KernelHandle, RemoteKernelInfo } from './kernel/handle.js';
export { Kernel } from './kernel/kernel.js';
export {
  type Completeness,
  type Completion,
  type ExecuteOptions,
  type KernelOptions,
  KernelStartError,
  LANGUAGE_LABEL,
} from './kernel/types.js';
export type { Language } from './language.js';
export { type PrestartedKernel, prestartPython } from './launch/prestart.js';
export {
  PythonNotFoundError,
  type ResolvedPython,
  type ResolveOptions,
  resolvePython,
} from './launch/python.js';
export { type Logger, streamLogger } from './logger.js';
export { ArtifactFile, writtenArtifact } from './output/artifact.js';
export { type ImageOutput, type StatusEvent, shownStatusLine } from './output/display.js';
export { resolveArtifact } from './output/outputSink.js';
export {
  applyBackspaces,
  cutPoint,
  dropLastChars,
  isPlainText,
  lastIndexOfChar,
  oneLine,
  plainText,
  sanitize,
} from './output/text.js';
export { perfOff } from './perfOff.js';
export type { BridgeHandler, VariableInfo } from './protocol/index.js';
export { hasCredentials, redactUrl } from './remote/redact.js';
export { serverLabel } from './remote/server.js';
export { checkSandbox, findBwrap } from './sandbox/bwrap.js';
export { memoryMethodHere } from './sandbox/cgroup.js';
export {
  describeSandbox,
  memoryLimitOf,
  SandboxError,
  type SandboxSettings,
  sandboxLabel,
  sandboxOf,
  sandboxSummary,
} from './sandbox/settings.js';
/** The eval tool's cell as a JSON Schema (schemas.json's `cell`): what the MCP tool declares. */
export { toolInputSchema } from './schemas/index.js';
export {
  cellLanguage,
  hasCellMarkers,
  notebookCells,
  type ScriptCell,
  splitCells,
} from './script.js';
export {
  backendAvailability,
  type KernelMode,
  loadSettings,
  type Settings,
  SettingsError,
} from './settings.js';
export {
  budgetSinkLimits,
  composeToolText,
  type EvalToolParams,
  type EvalToolResult,
  runEvalTool,
  TOOL_TEXT_CHARS,
  ToolInputError,
  type ToolText,
  validateToolInput,
} from './tool.js';
