import type { FastifyInstance } from 'fastify';
import {
  AuditListResponse,
  AuditQuery,
  TokenCreateRequest,
  TokenCreateResponse,
  TokenSelfResponse,
} from '../../shared/protocol/audit';
import type { Clock } from '../../shared/ports';
import type { TokenStore } from '../auth/token-store';
import { TokenStoreError } from '../auth/token-store';
import { AuditCursorError } from './audit-log';
import type { AuditLog } from './audit-log';
import { ApiHttpError } from '../http/api-error';

/**
 * `GET /api/v1/audit?limit=&cursor=` (admin): the audit log, newest first (docs/clients.md).
 * `GET /api/v1/tokens/self` (read): the caller's token name and scopes, for the plugin's settings.
 * `POST /api/v1/tokens` / `DELETE /api/v1/tokens/:name` (admin): what `cairn-companion token`
 * does, for the plugin (a read+write `phone` token for pairing instead of the owner's).
 */
export function registerAuditRoutes(
  app: FastifyInstance,
  deps: { audit: AuditLog; tokens: TokenStore; clock: Clock },
): void {
  const { audit, tokens } = deps;
  app.get<{ Querystring: AuditQuery }>(
    '/api/v1/audit',
    {
      schema: { querystring: AuditQuery, response: { 200: AuditListResponse } },
      config: { scope: 'admin' },
    },
    async (request) => {
      try {
        return audit.list({ limit: request.query.limit ?? 50, cursor: request.query.cursor });
      } catch (error) {
        if (error instanceof AuditCursorError) {
          throw new ApiHttpError('VALIDATION_ERROR', error.message, 'cursor');
        }
        throw error;
      }
    },
  );

  app.post<{ Body: TokenCreateRequest }>(
    '/api/v1/tokens',
    {
      schema: { body: TokenCreateRequest, response: { 201: TokenCreateResponse } },
      config: { scope: 'admin' },
    },
    async (request, reply) => {
      const created = storeErrors(() =>
        tokens.create(request.body.name, request.body.scopes, deps.clock.now(), request.body.paths),
      );
      return reply.code(201).send({
        name: created.stored.name,
        scopes: created.stored.scopes,
        ...(created.stored.paths === undefined ? {} : { paths: created.stored.paths }),
        token: created.token,
      });
    },
  );

  app.delete<{ Params: { name: string } }>(
    '/api/v1/tokens/:name',
    { config: { scope: 'admin' } },
    async (request, reply) => {
      storeErrors(() => tokens.revoke(request.params.name));
      return reply.code(204).send();
    },
  );

  app.get(
    '/api/v1/tokens/self',
    { schema: { response: { 200: TokenSelfResponse } }, config: { scope: 'read' } },
    async (request) => {
      const auth = request.cairnAuth;
      if (auth === null) throw new ApiHttpError('UNAUTHORIZED', 'no token');
      return {
        name: auth.tokenName,
        scopes: [...auth.scopes],
        ...(auth.paths === undefined ? {} : { paths: [...auth.paths] }),
      };
    },
  );
}

function storeErrors<T>(work: () => T): T {
  try {
    return work();
  } catch (error) {
    if (error instanceof TokenStoreError) {
      throw new ApiHttpError(
        error.code,
        error.message,
        error.code === 'NOT_FOUND' ? undefined : (error.field ?? 'name'),
      );
    }
    throw error;
  }
}
