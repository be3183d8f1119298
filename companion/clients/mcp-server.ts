import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { formatSourceList } from '../tools';
import type { AuditClient } from '../../shared/protocol/audit';
import type { TokenIdentity } from '../auth/scopes';
import { COMPANION_VERSION } from '../version';
import type { ToolCallOutcome, ToolRegistry } from '../tools';

/**
 * An MCP server (official SDK, low-level `Server`) over the tool registry, for one caller. Tool
 * input schemas are the registry's JSON Schemas as they are, no zod copies. A tool's result is
 * its text (ending with the numbered sources) plus `structuredContent` with the envelope's data
 * and the citations; a failed call is an error result (`isError`) whose text names the code,
 * the field and what was wrong.
 */
export function createMcpServer(
  registry: ToolRegistry,
  caller: { identity: TokenIdentity; client: AuditClient },
): Server {
  const server = new Server(
    { name: 'cairn', version: COMPANION_VERSION },
    {
      capabilities: { tools: {} },
      instructions:
        "Cairn answers from the user's Obsidian vault. Cite sources as the tools give them (path, heading, lines).",
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: registry.list().map((tool) => ({
      name: tool.name,
      description: tool.description,
      inputSchema: tool.inputSchema as { type: 'object'; [key: string]: unknown },
      annotations: { readOnlyHint: tool.scope === 'read' },
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) =>
    toCallToolResult(await registry.call(request.params.name, request.params.arguments, caller)),
  );
  return server;
}

export function toCallToolResult(outcome: ToolCallOutcome): CallToolResult {
  const { result, citations } = outcome;
  if (!result.success) {
    const { code, message, field } = result.error;
    return {
      isError: true,
      content: [
        {
          type: 'text',
          text: `${code}: ${message}${field === undefined ? '' : ` (field: ${field})`}`,
        },
      ],
      structuredContent: { error: result.error },
    };
  }
  const sources = formatSourceList(citations);
  const text = sources === '' ? outcome.text : `${outcome.text}\n\nSources:\n${sources}`;
  return {
    content: [{ type: 'text', text: text === '' ? 'Done.' : text }],
    structuredContent: {
      data: result.data as Record<string, unknown>,
      ...(result.deduplicated ? { deduplicated: true } : {}),
      citations,
    },
  };
}
