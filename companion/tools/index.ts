// Public surface of the tools feature (docs/tools.md).
export { ToolService } from './tool-service';
export type { ToolServiceOptions } from './tool-service';
export { registerToolRoutes } from './tool-routes';
export {
  McpServerPool,
  ToolServerConfigError,
  checkServerConfig,
  serverNeedsNetwork,
} from './mcp-servers';
export { PendingAsks, DEFAULT_ASK_TIMEOUT_MS } from './pending-asks';
export { ToolRegistry } from './tool-registry';
export type { ToolCallOutcome, ListedTool } from './tool-registry';
export { CLIENT_TOOLS, CLIENT_TOOL_NAMES, formatSourceList } from './client-tools';
export type { ClientToolName } from './client-tools';
export { createCompanionToolRunner } from './companion-tool-runner';
export type {
  ChatOllamaConfig,
  CompanionToolServices,
  ToolRunnerOptions,
} from './companion-tool-runner';
