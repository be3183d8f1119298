import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';

/*
 * docs/memory-digest-calendar.md calendar: `GET /api/v1/calendar/week?week=2026-W48` (the phone page and the plugin's
 * week view code against it) and the digest route. Times are ISO 8601 with the offset of the
 * week's zone; days run Monday to Sunday in that zone.
 */

export const IsoWeekText = Type.String({
  pattern: '^\\d{4}-W\\d{2}$',
  description: 'ISO week, 2026-W48',
});

export const CalendarItem = Type.Object(
  {
    kind: Type.Union([Type.Literal('reminder'), Type.Literal('event')]),
    id: Type.String(),
    title: Type.String(),
    /** ISO 8601 with offset; an all-day item starts at 00:00 of its day. */
    start: Type.String(),
    end: Type.Union([Type.String(), Type.Null()]),
    all_day: Type.Boolean(),
    path: Type.String(),
    /** 1-based line of an inline reminder; null for reminder notes and events. */
    line: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()]),
    /** Reminders only: this occurrence's state. Events: null. */
    status: Type.Union([
      Type.Literal('active'),
      Type.Literal('done'),
      Type.Literal('missed'),
      Type.Null(),
    ]),
    recurring: Type.Boolean(),
  },
  { additionalProperties: false },
);
export type CalendarItem = Static<typeof CalendarItem>;

export const CalendarDay = Type.Object(
  { date: Type.String(), items: Type.Array(CalendarItem) },
  { additionalProperties: false },
);
export type CalendarDay = Static<typeof CalendarDay>;

export const CalendarWeek = Type.Object(
  {
    week: Type.String(),
    /** Monday, `YYYY-MM-DD`. */
    start: Type.String(),
    /** Sunday, `YYYY-MM-DD`. */
    end: Type.String(),
    timezone: Type.String(),
    /** Exactly seven, Monday first. */
    days: Type.Array(CalendarDay, { minItems: 7, maxItems: 7 }),
  },
  { additionalProperties: false },
);
export type CalendarWeek = Static<typeof CalendarWeek>;

export const CalendarWeekQuery = Type.Object(
  { week: Type.Optional(IsoWeekText) },
  { additionalProperties: false },
);
export type CalendarWeekQuery = Static<typeof CalendarWeekQuery>;

export const DigestCreate = Type.Object(
  { week: Type.Optional(IsoWeekText) },
  { additionalProperties: false },
);
export type DigestCreate = Static<typeof DigestCreate>;

export const DigestWritten = Type.Object({ path: Type.String(), week: Type.String() });
export type DigestWritten = Static<typeof DigestWritten>;
