import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { Cursor } from '../../shared/protocol/formats';
import { MissedResponse, TITLE_MAX_CHARS } from '../../shared/protocol/reminders';
import type { MissedReminder } from '../../shared/protocol/reminders';
import { formatInZone } from '../../shared/reminders/local-time';
import { currentPathRules, pathAllowed } from '../auth/path-rules';
import { ApiHttpError } from '../http/api-error';
import type { MissedItem, ReminderScheduler } from './scheduler';

export const MISSED_LIMIT_DEFAULT = 50;
export const MISSED_LIMIT_MAX = 200;

const MissedQuery = Type.Object(
  {
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: MISSED_LIMIT_MAX, default: MISSED_LIMIT_DEFAULT }),
    ),
    cursor: Type.Optional(Cursor()),
  },
  { additionalProperties: false },
);
type MissedQuery = Static<typeof MissedQuery>;

/**
 * `GET /api/v1/reminders/missed` (companion/README.md): every reminder that cannot fire. First the
 * unresolved ones (natural language, bad zone, anything that does not read), then listed
 * occurrences, newest first: `expired` (older than the grace window when the companion came
 * back) and `past_due` (a one-off already past when first seen).
 *
 * The cursor is an opaque position in that list. An entry added or removed while a client pages
 * can shift the next page by that many entries (a repeat or a skip at the seam), which is
 * acceptable for an attention list that changes rarely; it never fails or loops.
 */
export function registerMissedRoute(app: FastifyInstance, scheduler: ReminderScheduler): void {
  app.get<{ Querystring: MissedQuery }>(
    '/api/v1/reminders/missed',
    { schema: { querystring: MissedQuery, response: { 200: MissedResponse } } },
    async (request): Promise<MissedResponse> => {
      const limit = request.query.limit ?? MISSED_LIMIT_DEFAULT;
      const offset = request.query.cursor === undefined ? 0 : readCursor(request.query.cursor);
      const { items, total } = await missedWithinPathRules(scheduler, offset, limit);
      const missed = items.map((item): MissedReminder => {
        const line = item.line === undefined ? {} : { line: item.line };
        if (item.kind === 'unresolved') {
          return {
            reminder_id: item.id,
            title: capTitle(item.title),
            path: item.path,
            ...line,
            occurrence: null,
            reason: 'unresolved',
            problem: item.problem ?? 'invalid',
            detail: item.detail,
          };
        }
        return {
          reminder_id: item.reminderId,
          title: capTitle(item.title),
          path: item.path,
          ...line,
          occurrence: formatInZone(item.occurrence, item.zone),
          reason: item.reason ?? 'expired',
        };
      });
      const nextOffset = offset + items.length;
      return {
        missed,
        next_cursor: items.length > 0 && nextOffset < total ? writeCursor(nextOffset) : null,
      };
    },
  );
}

/**
 * The scheduler's missed list, or for a token limited to folders (auth/path-rules.ts) only its
 * entries inside them: the whole list is read then (it is an attention list, short) so that
 * the cursor's positions count only what this token sees.
 */
async function missedWithinPathRules(
  scheduler: ReminderScheduler,
  offset: number,
  limit: number,
): Promise<{ items: MissedItem[]; total: number }> {
  const rules = currentPathRules();
  if (rules === undefined) return scheduler.missed(offset, limit);
  const all = await scheduler.missed(0, Number.MAX_SAFE_INTEGER);
  const visible = all.items.filter((item) => pathAllowed(rules, item.path));
  return { items: visible.slice(offset, offset + limit), total: visible.length };
}

/** Titles come from the vault, where a line can be any length: cut like the API's own. */
function capTitle(title: string): string {
  return title.length <= TITLE_MAX_CHARS ? title : `${title.slice(0, TITLE_MAX_CHARS - 1)}…`;
}

const CURSOR_PREFIX = 'm1:';

export function writeCursor(offset: number): string {
  return Buffer.from(`${CURSOR_PREFIX}${offset}`, 'utf8').toString('base64url');
}

function readCursor(cursor: string): number {
  const text = /^[A-Za-z0-9_-]+$/.test(cursor)
    ? Buffer.from(cursor, 'base64url').toString('utf8')
    : '';
  const match = /^m1:(\d{1,9})$/.exec(text);
  if (!match) {
    throw new ApiHttpError(
      'VALIDATION_ERROR',
      'cursor: not a cursor from a previous page of this list',
      'cursor',
    );
  }
  return Number(match[1]);
}
