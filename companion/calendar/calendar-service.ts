import { basename } from 'node:path';
import { currentPathRules, pathAllowed } from '../auth/path-rules';
import { buildCalendarWeek, buildIcsFeed, isoWeekOfDay, parseIsoWeek } from '../../shared/calendar';
import type { CalendarReminder, NoteEvent } from '../../shared/calendar';
import type { IsoWeek } from '../../shared/calendar';
import { MS_PER_DAY } from '../../shared/chat/zone-calendar';
import type { Clock } from '../../shared/ports';
import type { CalendarWeek } from '../../shared/protocol/calendar';
import { instantToWall } from '../../shared/reminders/local-time';

/** Where calendars get their entries: the vault source's reminders and note events. */
export interface CalendarEntries {
  reminders(): Iterable<CalendarReminder>;
  events(): Iterable<NoteEvent>;
  /** Keys `<reminder id>@<epoch ms>` of occurrences on the missed list (absent: none are). */
  missed?(): Promise<ReadonlySet<string>>;
}

export interface CalendarServiceDeps {
  readonly vault: string;
  readonly zone: string;
  readonly clock: Clock;
  readonly entries: CalendarEntries;
}

/** The week view's data and the iCalendar feed over the companion's vault entries. */
export class CalendarService {
  constructor(private readonly deps: CalendarServiceDeps) {}

  /** The current ISO week in the companion's zone. */
  currentWeek(): IsoWeek {
    return isoWeekOfDay(
      Math.floor(instantToWall(this.deps.clock.now(), this.deps.zone) / MS_PER_DAY),
    );
  }

  async week(text?: string): Promise<CalendarWeek> {
    const week = text === undefined ? this.currentWeek() : parseIsoWeek(text);
    const missed = (await this.deps.entries.missed?.()) ?? new Set<string>();
    // A token limited to folders (auth/path-rules.ts) sees only their reminders and events.
    const rules = currentPathRules();
    const inside = <T extends { readonly path: string }>(entries: Iterable<T>): Iterable<T> =>
      rules === undefined
        ? entries
        : [...entries].filter((entry) => pathAllowed(rules, entry.path));
    return buildCalendarWeek({
      week,
      zone: this.deps.zone,
      reminders: inside(this.deps.entries.reminders()),
      events: inside(this.deps.entries.events()),
      isMissed: (id, at) => missed.has(`${id}@${at}`),
    });
  }

  feed(): string {
    const vaultName = basename(this.deps.vault);
    return buildIcsFeed({
      reminders: this.deps.entries.reminders(),
      events: this.deps.entries.events(),
      now: this.deps.clock.now(),
      vaultName,
      calendarName: `Cairn: ${vaultName}`,
    });
  }
}
