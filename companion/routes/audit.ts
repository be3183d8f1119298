import type { FastifyInstance } from 'fastify';
import { AuditListResponse, AuditQuery, TokenSelfResponse } from '../../shared/protocol/audit';
import { AuditCursorError } from '../audit/audit-log';
import type { AuditLog } from '../audit/audit-log';
import { ApiHttpError } from '../http/api-error';

/**
 * `GET /api/v1/audit?limit=&cursor=` (admin): the audit log, newest first (DESIGN §8).
 * `GET /api/v1/tokens/self` (read): the caller's token name and scopes, for the plugin's settings.
 */
export function registerAuditRoutes(app: FastifyInstance, audit: AuditLog): void {
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

  app.get(
    '/api/v1/tokens/self',
    { schema: { response: { 200: TokenSelfResponse } }, config: { scope: 'read' } },
    async (request) => {
      const auth = request.cairnAuth;
      if (auth === null) throw new ApiHttpError('UNAUTHORIZED', 'no token');
      return { name: auth.tokenName, scopes: [...auth.scopes] };
    },
  );
}
