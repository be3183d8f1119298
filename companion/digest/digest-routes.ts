import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { IsoWeekError } from '../../shared/calendar';
import { DigestCreate, DigestWritten } from '../../shared/protocol/calendar';
import type { DigestService } from './digest-service';
import { ApiHttpError } from '../http/api-error';
import { VaultWriteError } from '../vault/atomic-write';

/**
 * `POST /api/v1/digests` `{ "week"? }` (docs/memory-digest-calendar.md): writes that ISO week's digest (default: the
 * week before the current one) and answers `{ path, week }`: 201 when written now, 200 when its
 * file already exists (it is never overwritten: delete it to have it written again).
 */
export function registerDigestRoutes(app: FastifyInstance, digests: DigestService): void {
  // No body at all (`curl -X POST …/digests`) is the default week, like `{}`.
  const body = Type.Union([DigestCreate, Type.Null()]);
  app.post<{ Body: DigestCreate | null | undefined }>(
    '/api/v1/digests',
    { schema: { body, response: { 200: DigestWritten, 201: DigestWritten } } },
    async (request, reply) => {
      try {
        const outcome = await digests.writeOnDemand(request.body?.week);
        return reply
          .code(outcome.status === 'written' ? 201 : 200)
          .send({ path: outcome.path, week: outcome.week });
      } catch (error) {
        if (error instanceof IsoWeekError)
          throw new ApiHttpError('VALIDATION_ERROR', error.message, 'week');
        if (error instanceof VaultWriteError)
          throw new ApiHttpError(error.code, error.message, error.field);
        throw error;
      }
    },
  );
}
