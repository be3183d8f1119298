import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import {
  ToolAsk,
  ToolAskAnswer,
  ToolAskList,
  ToolAskParams,
  ToolListResponse,
  ToolListing,
  ToolNameParams,
  ToolPatch,
  ToolRunsQuery,
  ToolRunsResponse,
  ToolServerConfig,
  ToolServerDeleteQuery,
  ToolServerList,
  ToolServerStatus,
} from '../../shared/protocol/tools';
import type { Static } from '@sinclair/typebox';
import { ApiHttpError } from '../http/api-error';
import type { AuditLog } from '../audit/audit-log';
import { ToolServerConfigError, checkServerConfig } from './mcp-servers';
import { AskNotFoundError } from './pending-asks';
import type { ToolService } from './tool-service';

/**
 * docs/tools.md. Admin: `GET /api/v1/tools`, `PATCH /api/v1/tools/:name`,
 * `GET|POST|DELETE /api/v1/tools/servers`, `GET /api/v1/tools/runs?limit=`. The asks a chat
 * waits on are answered by whoever chats: `GET /api/v1/tools/asks` (read) and
 * `POST /api/v1/tools/asks/:id` `{ decision }` (write), for the plugin and the phone page.
 */
export function registerToolRoutes(
  app: FastifyInstance,
  deps: { tools: ToolService; audit: AuditLog },
): void {
  const { tools } = deps;

  app.get(
    '/api/v1/tools',
    { schema: { response: { 200: ToolListResponse } }, config: { scope: 'admin' } },
    async () => ({ tools: tools.list() }),
  );

  app.patch<{ Params: Static<typeof ToolNameParams>; Body: ToolPatch }>(
    '/api/v1/tools/:name',
    {
      schema: { params: ToolNameParams, body: ToolPatch, response: { 200: ToolListing } },
      config: { scope: 'admin' },
    },
    async (request) => {
      const { name } = request.params;
      if (tools.descriptor(name) === undefined) {
        throw new ApiHttpError('NOT_FOUND', `no tool "${name}"`, 'name');
      }
      const { conversation, session, permission } = request.body;
      if ((conversation !== undefined || session === true) && permission === undefined) {
        throw new ApiHttpError(
          'VALIDATION_ERROR',
          'conversation and session narrow a permission; give permission too',
          'permission',
        );
      }
      if (conversation !== undefined && session === true) {
        throw new ApiHttpError(
          'VALIDATION_ERROR',
          'give conversation or session, not both',
          'session',
        );
      }
      tools.update(name, request.body);
      const listed = tools.list().find((tool) => tool.name === name);
      if (listed === undefined) throw new ApiHttpError('NOT_FOUND', `no tool "${name}"`, 'name');
      return listed;
    },
  );

  app.get(
    '/api/v1/tools/servers',
    { schema: { response: { 200: ToolServerList } }, config: { scope: 'admin' } },
    async () => ({ servers: tools.servers.status() }),
  );

  app.post<{ Body: ToolServerConfig }>(
    '/api/v1/tools/servers',
    {
      schema: { body: ToolServerConfig, response: { 201: ToolServerStatus } },
      config: { scope: 'admin' },
    },
    async (request, reply) => {
      const config = request.body;
      try {
        checkServerConfig(config);
      } catch (error) {
        if (error instanceof ToolServerConfigError) {
          throw new ApiHttpError('VALIDATION_ERROR', error.message, error.field);
        }
        throw error;
      }
      if (tools.store.hasServer(config.name)) {
        throw new ApiHttpError('CONFLICT', `a server named "${config.name}" exists`, 'name');
      }
      await tools.servers.add(config);
      const status = tools.servers.status().find((server) => server.name === config.name);
      if (status === undefined || status.state !== 'up') {
        // Nothing is stored for a server that never came up: the user fixes the config instead.
        await tools.servers.remove(config.name);
        throw new ApiHttpError(
          'UNPROCESSABLE',
          `could not connect to "${config.name}": ${status?.error ?? 'unknown error'}`,
          config.command === undefined ? 'url' : 'command',
        );
      }
      tools.store.addServer(config);
      return reply.code(201).send(status);
    },
  );

  const removeServer = async (name: string) => {
    const stored = tools.store.removeServer(name);
    const running = await tools.servers.remove(name);
    if (!stored && !running) throw new ApiHttpError('NOT_FOUND', `no server "${name}"`, 'name');
  };

  app.delete<{ Querystring: Static<typeof ToolServerDeleteQuery> }>(
    '/api/v1/tools/servers',
    { schema: { querystring: ToolServerDeleteQuery }, config: { scope: 'admin' } },
    async (request, reply) => {
      await removeServer(request.query.name);
      return reply.code(204).send();
    },
  );

  app.delete<{ Params: Static<typeof ToolServerDeleteQuery> }>(
    '/api/v1/tools/servers/:name',
    { schema: { params: ToolServerDeleteQuery }, config: { scope: 'admin' } },
    async (request, reply) => {
      await removeServer(request.params.name);
      return reply.code(204).send();
    },
  );

  app.get<{ Querystring: Static<typeof ToolRunsQuery> }>(
    '/api/v1/tools/runs',
    {
      schema: { querystring: ToolRunsQuery, response: { 200: ToolRunsResponse } },
      config: { scope: 'admin' },
    },
    async (request) => ({ runs: deps.audit.toolRuns(request.query.limit ?? 50) }),
  );

  app.get(
    '/api/v1/tools/asks',
    { schema: { response: { 200: ToolAskList } }, config: { scope: 'read' } },
    // Only the asks made under the caller's path rules, if it has any (tool-service.ts).
    async () => ({ asks: tools.visibleAsks() }),
  );

  app.post<{ Params: Static<typeof ToolAskParams>; Body: ToolAskAnswer }>(
    '/api/v1/tools/asks/:id',
    {
      schema: {
        params: ToolAskParams,
        body: ToolAskAnswer,
        response: { 200: Type.Object({ ask: ToolAsk, decision: Type.String() }) },
      },
      config: { scope: 'write' },
    },
    async (request) => {
      try {
        const ask = tools.answerAsk(request.params.id, request.body.decision);
        return { ask, decision: request.body.decision };
      } catch (error) {
        if (error instanceof AskNotFoundError) {
          throw new ApiHttpError('NOT_FOUND', error.message, 'id');
        }
        throw error;
      }
    },
  );
}
