import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { IsoInstant } from './formats';
import { SNOOZE_MINUTES_MAX } from './reminders';

/*
 * Bodies of the phone's notification actions (and the API's): they may name the occurrence the
 * notification was about, so acting on a recurring reminder touches that occurrence only.
 */

/**
 * The occurrence a notification was about; `''` (a notification that carried none, e.g. an old
 * one) is the same as leaving it out.
 */
const ActedOccurrence = Type.Union([IsoInstant(), Type.Literal('')]);

/** `POST /api/v1/reminders/:id/done`; without `occurrence`, the one due now or next. */
export const ReminderDoneRequest = Type.Union([
  Type.Object({ occurrence: Type.Optional(ActedOccurrence) }, { additionalProperties: false }),
  Type.Null(),
]);
export type ReminderDoneRequest = Static<typeof ReminderDoneRequest>;

/** `POST /api/v1/reminders/:id/snooze`: `SnoozeRequest` plus the optional occurrence. */
export const ReminderSnoozeRequest = Type.Object(
  {
    minutes: Type.Integer({ minimum: 1, maximum: SNOOZE_MINUTES_MAX }),
    occurrence: Type.Optional(ActedOccurrence),
  },
  { additionalProperties: false },
);
export type ReminderSnoozeRequest = Static<typeof ReminderSnoozeRequest>;
