import type { Server } from '@modelcontextprotocol/sdk/server/index.js';

export interface RecordedCall {
  name: string;
  args: Record<string, unknown> | undefined;
}

export declare const TOOL_DEFINITIONS: Array<{
  name: string;
  inputSchema: Record<string, unknown>;
}>;

export declare function createToolServer(options?: {
  calls?: RecordedCall[];
  /** Instead of exiting the process (HTTP mode): what `crash` does. */
  onCrash?: () => unknown;
  /** Appends each call as a JSON line (the stdio child's record for the test). */
  callsFile?: string;
}): { server: Server; calls: RecordedCall[] };
