import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiHttpError } from '../http/api-error';
import { TOOL_LIMITS } from '../http/rate-limits';
import type { RateLimitCheck } from '../http/rate-limits';
import type { ToolRegistry } from '../tools';

/**
 * The MCP SDK's server side, imported on the first `/mcp` request: loading it (and its zod
 * schemas) at start cost every companion and every command-line call about a tenth of a
 * second of CPU, and most never serve MCP.
 */
async function importServerSdk() {
  const [{ StreamableHTTPServerTransport }, { createMcpServer }] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
    import('./mcp-server'),
  ]);
  return { StreamableHTTPServerTransport, createMcpServer };
}
let serverSdk: ReturnType<typeof importServerSdk> | undefined;

/**
 * The Model Context Protocol over Streamable HTTP at `/mcp` (docs/clients.md), behind the same bearer
 * token as the API (auth runs before this handler; the route needs `read`, write tools check
 * `write` per call). Stateless: every request gets its own SDK server and transport, so a token
 * revoked mid-session fails on its next request, and nothing is held between requests.
 * The reply is hijacked and the raw request/response handed to the SDK's transport.
 */
export function registerMcpRoute(
  app: FastifyInstance,
  registry: ToolRegistry,
  checkRateLimit: RateLimitCheck,
): void {
  const handle = async (request: FastifyRequest, reply: FastifyReply) => {
    const identity = request.cairnAuth;
    if (identity === null) throw new ApiHttpError('UNAUTHORIZED', 'no token');
    // Each tool call counts against the limit of the REST route doing the same work, per token
    // and per address, before the reply is handed to the SDK (a 429 in Cairn's envelope).
    for (const tool of calledTools(request.body)) {
      const limit = TOOL_LIMITS[tool];
      if (limit !== undefined) await checkRateLimit(request, limit);
    }
    const { StreamableHTTPServerTransport, createMcpServer } = await (serverSdk ??=
      importServerSdk());
    const server = createMcpServer(registry, { identity, client: 'mcp' });
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    reply.hijack();
    reply.raw.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(request.raw, reply.raw, request.body);
  };
  for (const method of ['POST', 'GET', 'DELETE'] as const) {
    app.route({ method, url: '/mcp', config: { scope: 'read' }, handler: handle });
  }
}

/** The tool names of the `tools/call` messages in a JSON-RPC body (one message or a batch). */
function calledTools(body: unknown): string[] {
  const messages = Array.isArray(body) ? (body as unknown[]) : [body];
  const names: string[] = [];
  for (const message of messages) {
    if (typeof message !== 'object' || message === null) continue;
    const { method, params } = message as { method?: unknown; params?: { name?: unknown } };
    if (method === 'tools/call' && typeof params?.name === 'string') names.push(params.name);
  }
  return names;
}
