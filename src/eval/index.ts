/**
 * The engine's public face: the only module front ends (src/cli.ts, src/modes, src/tui) import.
 * It knows nothing of terminals; front ends consume its typed events and results. Running cells:
 * createExecutor → Executor.session → Session.run; the eval tool: runEvalTool; kernels of their
 * own: Kernel.start; the wire protocol's types, for kernels of other kinds (sandboxed, remote).
 */

export {
  autoIndent,
  type CompletenessOracle,
  cellCompleteness,
  localCompleteness,
  needsMoreLines,
} from './completeness.js';
export {
  AGENT_FACES,
  describeEnvFilter,
  type EnvFilterChoice,
  envFilterLabel,
  envFilterOf,
  type Face,
} from './envFilter.js';
export { type BridgeCommands, commandBridge, resolveAgentHandle } from './executor/commandBridge.js';
export type { OutputEvent } from './executor/events.js';
export { type KernelStateListener, type KernelStatus, LANGUAGES } from './executor/kernelSet.js';
export { checkCwd, createExecutor, type Executor } from './executor/registry.js';
export {
  type CellRequest,
  type CellResult,
  type CellStatus,
  failedResult,
  skippedResult,
  TIMEOUT_KILLED_NOTICE,
  TIMEOUT_NOTICE,
  withoutToolAdvice,
} from './executor/results.js';
export type { Session } from './executor/session.js';
export type { ExecutorOptions, RunOptions, SessionOptions } from './executor/types.js';
export { ExecutorError } from './executor/types.js';
export type { KernelFactory, KernelHandle, RemoteKernelInfo } from './kernel/handle.js';
export { Kernel } from './kernel/kernel.js';
export { type PrestartedKernel, prestartPython } from './kernel/prestart.js';
export {
  PythonNotFoundError,
  type ResolvedPython,
  type ResolveOptions,
  resolvePython,
} from './kernel/python.js';
export {
  type KernelEvent,
  type KernelState,
  nextState,
  TRANSITIONS,
} from './kernel/state.js';
export {
  type CellError,
  type CellOutcome,
  type Completeness,
  type Completion,
  type ExecuteOptions,
  type KernelExit,
  type KernelLanguage,
  type KernelOptions,
  KernelStartError,
  LANGUAGE_LABEL,
  type Variables,
} from './kernel/types.js';
export { type Logger, silentLogger, streamLogger } from './logger.js';
export { ArtifactFile, writtenArtifact } from './output/artifact.js';
export { type ImageOutput, type StatusEvent, shownStatusLine } from './output/display.js';
export { OutputSink, resolveArtifact, type Truncation } from './output/outputSink.js';
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
export type {
  BridgeHandler,
  BridgeRequest,
  CompletenessStatus,
  Frame,
  FrameType,
  MimeBundle,
  VariableInfo,
} from './protocol/index.js';
export { hasCredentials, redactUrl } from './remote/redact.js';
export { serverLabel } from './remote/server.js';
export { checkSandbox, findBwrap, sandboxProblem } from './sandbox/bwrap.js';
export { memoryMethodHere } from './sandbox/cgroup.js';
export {
  describeSandbox,
  memoryLimitOf,
  SANDBOX_MODES,
  SandboxError,
  type SandboxMode,
  type SandboxSettings,
  sandboxLabel,
  sandboxOf,
  sandboxSummary,
} from './sandbox/settings.js';
/** The eval tool's cell as a JSON Schema (schemas.json's `cell`): what the MCP tool declares. */
export { cellSchema } from './schemas/index.js';
export {
  type CellLanguage,
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
  type EvalToolContext,
  type EvalToolParams,
  type EvalToolResult,
  renderToolText,
  runEvalTool,
  TOOL_TEXT_CHARS,
  ToolInputError,
  type ToolText,
  validateToolInput,
} from './tool.js';
