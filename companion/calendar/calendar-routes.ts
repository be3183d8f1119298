import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { IsoWeekError } from '../../shared/calendar';
import { CalendarWeek, CalendarWeekQuery } from '../../shared/protocol/calendar';
import type { CalendarService } from './calendar-service';
import { feedSecretMatches } from './feed-secret';
import { ApiHttpError } from '../http/api-error';

const FeedParams = Type.Object({ feed: Type.String({ maxLength: 200 }) });

/**
 * docs/memory-digest-calendar.md calendar routes. The week (`GET /api/v1/calendar/week`) needs the token like every
 * API route. The feed (`GET /api/v1/calendar/<secret>.ics`) is public: its secret path is the
 * credential. A wrong or rotated secret is a plain 404, the same answer as any unknown path,
 * and does not count as a failed token attempt (calendar apps retry stale URLs for days).
 */
export function registerCalendarRoutes(
  app: FastifyInstance,
  calendar: CalendarService,
  dataDir: string,
): void {
  app.get<{ Querystring: CalendarWeekQuery }>(
    '/api/v1/calendar/week',
    { schema: { querystring: CalendarWeekQuery, response: { 200: CalendarWeek } } },
    async (request) => {
      try {
        return await calendar.week(request.query.week);
      } catch (error) {
        if (error instanceof IsoWeekError)
          throw new ApiHttpError('VALIDATION_ERROR', error.message, 'week');
        throw error;
      }
    },
  );

  app.get<{ Params: { feed: string } }>(
    '/api/v1/calendar/:feed',
    { config: { public: true }, schema: { params: FeedParams } },
    async (request, reply) => {
      const match = /^(.+)\.ics$/.exec(request.params.feed);
      if (!match || !feedSecretMatches(dataDir, match[1]!)) {
        throw new ApiHttpError(
          'NOT_FOUND',
          'no such calendar feed (was its URL rotated? run `cairn-companion calendar-url`)',
        );
      }
      return reply
        .header('content-type', 'text/calendar; charset=utf-8')
        .header('cache-control', 'private, max-age=300')
        .header('content-disposition', 'inline; filename="cairn.ics"')
        .send(calendar.feed());
    },
  );
}
