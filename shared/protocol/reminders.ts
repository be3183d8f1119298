import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import {
  Cursor,
  IanaZone,
  IsoDateOrDateTime,
  IsoInstant,
  IsoLocalOrInstant,
  NonBlank,
  RruleText,
} from './formats';

export const TITLE_MAX_CHARS = 500;
export const OCCURRENCES_MAX = 1000;
export const OCCURRENCES_DEFAULT = 10;
/** A year: snoozing longer than that is rescheduling. */
export const SNOOZE_MINUTES_MAX = 525_600;

export const ReminderStatus = Type.Union([
  Type.Literal('active'),
  Type.Literal('done'),
  Type.Literal('cancelled'),
]);
export type ReminderStatus = Static<typeof ReminderStatus>;

/** `POST /api/v1/reminders`: writes a reminder note (docs/vault-format.md) into the vault. */
export const ReminderCreate = Type.Object(
  {
    title: NonBlank({ maxLength: TITLE_MAX_CHARS }),
    /** First occurrence; without an offset it is wall time in `timezone`. */
    due: IsoLocalOrInstant(),
    /** Defaults to the vault's zone. */
    timezone: Type.Optional(IanaZone()),
    repeat: Type.Optional(RruleText()),
  },
  { additionalProperties: false },
);
export type ReminderCreate = Static<typeof ReminderCreate>;

/** Where a reminder is written: its own note, or an `@remind(...)` line inside some note. */
export const ReminderSource = Type.Union([Type.Literal('note'), Type.Literal('inline')]);
export type ReminderSource = Static<typeof ReminderSource>;

export const Reminder = Type.Object({
  /** Front-matter `id` for reminder notes; the block id (`r-7k2p`) or a path+text key for inline ones. */
  id: Type.String({ minLength: 1 }),
  title: Type.String(),
  /**
   * First occurrence, with the offset of `timezone` at that instant; null for an inline series
   * (`@remind(every monday 09:00)`), which has no first date of its own: `repeat_text` and
   * `next_fire` say when it rings.
   */
  due: Type.Union([IsoInstant(), Type.Null()]),
  timezone: IanaZone(),
  repeat: Type.Union([RruleText(), Type.Null()]),
  /** The rule in words ("every Monday at 08:00", shared/reminders/rule-words.ts); null for a one-off. */
  repeat_text: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  path: Type.String(),
  status: ReminderStatus,
  source: Type.Optional(ReminderSource),
  /** 1-based line of an inline reminder. */
  line: Type.Optional(Type.Integer({ minimum: 1 })),
  snoozed_until: Type.Optional(Type.Union([IsoInstant(), Type.Null()])),
  /** The next time it fires, or null when nothing is left (done, cancelled, rule exhausted). */
  next_fire: Type.Optional(Type.Union([IsoInstant(), Type.Null()])),
  /**
   * Overdue: a one-off, not done, whose time passed (whenever it was written, also before the
   * companion first ran), with that time; null otherwise (docs/reminders.md).
   */
  overdue_since: Type.Optional(Type.Union([IsoInstant(), Type.Null()])),
});
export type Reminder = Static<typeof Reminder>;

/**
 * `POST /api/v1/reminders` answer: the reminder, and whether it is one made by an identical
 * request within the last five minutes (200 instead of 201; docs/chat.md).
 */
export const ReminderCreated = Type.Object({
  ...Reminder.properties,
  deduplicated: Type.Boolean(),
});
export type ReminderCreated = Static<typeof ReminderCreated>;

/** `GET /api/v1/reminders` querystring. */
export const ReminderListQuery = Type.Object({
  status: Type.Optional(ReminderStatus),
  /** Only reminders whose next occurrence falls in [from, to]. */
  from: Type.Optional(IsoDateOrDateTime()),
  to: Type.Optional(IsoDateOrDateTime()),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
  cursor: Type.Optional(Cursor()),
});
export type ReminderListQuery = Static<typeof ReminderListQuery>;

export const ReminderListResponse = Type.Object({
  reminders: Type.Array(Reminder),
  next_cursor: Type.Union([Cursor(), Type.Null()]),
});
export type ReminderListResponse = Static<typeof ReminderListResponse>;

/** `PATCH /api/v1/reminders/:id`: at least one field; `repeat: null` turns a series into a one-off. */
export const ReminderPatch = Type.Object(
  {
    title: Type.Optional(NonBlank({ maxLength: TITLE_MAX_CHARS })),
    due: Type.Optional(IsoLocalOrInstant()),
    timezone: Type.Optional(IanaZone()),
    repeat: Type.Optional(Type.Union([RruleText(), Type.Null()])),
    status: Type.Optional(ReminderStatus),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type ReminderPatch = Static<typeof ReminderPatch>;

export const ReminderIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) });
export type ReminderIdParams = Static<typeof ReminderIdParams>;

/** `GET /api/v1/reminders/:id/occurrences` querystring. */
export const OccurrencesQuery = Type.Object({
  /** Defaults to now. */
  from: Type.Optional(IsoLocalOrInstant()),
  count: Type.Optional(
    Type.Integer({ minimum: 1, maximum: OCCURRENCES_MAX, default: OCCURRENCES_DEFAULT }),
  ),
});
export type OccurrencesQuery = Static<typeof OccurrencesQuery>;

export const OccurrencesResponse = Type.Object({
  /** ISO instants with the offset of the reminder's zone, e.g. `1997-09-02T09:00:00-04:00`. */
  occurrences: Type.Array(IsoInstant()),
});
export type OccurrencesResponse = Static<typeof OccurrencesResponse>;

/** `POST /api/v1/reminders/:id/snooze`. */
export const SnoozeRequest = Type.Object(
  { minutes: Type.Integer({ minimum: 1, maximum: SNOOZE_MINUTES_MAX }) },
  { additionalProperties: false },
);
export type SnoozeRequest = Static<typeof SnoozeRequest>;

/**
 * Why a reminder is on the missed/attention list: `expired`, an occurrence older than the grace
 * window when the companion came back; `past_due`, a one-off whose time had already passed
 * when the companion first saw it (written or synced late), so it never fired; `unresolved`, a
 * reminder it will not guess at (see `UnresolvedProblem`).
 */
export const MissedReason = Type.Union([
  Type.Literal('expired'),
  Type.Literal('past_due'),
  Type.Literal('unresolved'),
]);
export type MissedReason = Static<typeof MissedReason>;

/**
 * What is wrong with an `unresolved` reminder: natural language the plugin has not normalised
 * yet (`tomorrow 5pm`), a time zone that is not an IANA name, or anything else that does not
 * read (a bad date, rule or front matter).
 */
export const UnresolvedProblem = Type.Union([
  Type.Literal('natural_language'),
  Type.Literal('bad_zone'),
  Type.Literal('invalid'),
]);
export type UnresolvedProblem = Static<typeof UnresolvedProblem>;

export const MissedReminder = Type.Object({
  reminder_id: Type.String(),
  /** The reminder's title, at most TITLE_MAX_CHARS characters (cut with an ellipsis). */
  title: Type.String({ maxLength: TITLE_MAX_CHARS }),
  path: Type.String(),
  line: Type.Optional(Type.Integer({ minimum: 1 })),
  /** The occurrence that was missed; null for an unresolved token, which has no instant. */
  occurrence: Type.Union([IsoInstant(), Type.Null()]),
  reason: MissedReason,
  /** For `unresolved`: which kind of problem. */
  problem: Type.Optional(UnresolvedProblem),
  /** For `unresolved`: what is wrong, e.g. `"tomorrow 5pm" is natural language; open the note to fix it`. */
  detail: Type.Optional(Type.String()),
});
export type MissedReminder = Static<typeof MissedReminder>;

/** `GET /api/v1/reminders/missed`. */
export const MissedResponse = Type.Object({
  missed: Type.Array(MissedReminder),
  next_cursor: Type.Union([Cursor(), Type.Null()]),
});
export type MissedResponse = Static<typeof MissedResponse>;
