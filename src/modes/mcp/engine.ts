/**
 * Everything the MCP server takes from the engine, in one place: when the engine's public surface
 * moves (src/eval/index.ts), only these lines change.
 */
export { commandBridge } from '../../eval/bridge.js';
export type { ImageOutput, StatusEvent } from '../../eval/display.js';
export {
  type CellResult,
  checkCwd,
  createExecutor,
  type Executor,
  ExecutorError,
  LANGUAGES,
  type Language,
  type OutputEvent,
  type RunOptions,
  type Session,
} from '../../eval/executor.js';
export { type BridgeHandler, type BridgeRequest, KernelStartError } from '../../eval/kernel.js';
export { resolveArtifact } from '../../eval/outputSink.js';
export type { Frame } from '../../eval/protocol.js';
export { PythonNotFoundError } from '../../eval/runtime.js';
export { backendAvailability, type KernelMode, type Settings, SettingsError } from '../../eval/settings.js';
export {
  type EvalToolParams,
  type EvalToolResult,
  renderToolText,
  runEvalTool,
  ToolInputError,
  validateToolInput,
} from '../../eval/tool.js';
