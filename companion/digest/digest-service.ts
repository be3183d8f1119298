import { stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { dayStart, formatIsoWeek, isoWeekOfDay, parseIsoWeek } from '../../shared/calendar';
import { MS_PER_DAY } from '../../shared/chat/zone-calendar';
import { instantToWall } from '../../shared/reminders/local-time';
import type { CalendarReminder, IsoWeek } from '../../shared/calendar';
import { buildDigest, digestPath, weekMemoriesByCategory } from '../../shared/digest';
import type { DigestCompletion, DigestMemory, DigestNote } from '../../shared/digest';
import type { Clock } from '../../shared/ports';
import type { PushPayload } from '../../shared/protocol/push';
import { reminderDeepLink } from '../../shared/reminders/deep-link';
import type { Logger } from '../logging';
import type { ReminderDeliverer } from '../push/delivery-port';
import {
  createVaultFile,
  removeCreatedFile,
  VaultFileExistsError,
  VaultWriteError,
} from '../vault/atomic-write';
import { resolveVaultPath } from '../vault/paths';
import type { DigestStore } from './digest-store';

/** Where the digest's lists come from (the index, the vault reminder source, the scheduler). */
export interface DigestSources {
  /** Notes created or changed at or after `since`. */
  notesSince(since: number): Iterable<DigestNote>;
  reminders(): Iterable<CalendarReminder>;
  /** Missed occurrences (the scheduler's list). */
  missed(): Promise<Iterable<{ reminderId: string; occurrence: number }>>;
  /** Occurrences marked done in [from, to), with when (the scheduler's record). */
  completions?(from: number, to: number): Iterable<DigestCompletion>;
  /** Current memories (`Cairn/Memory.md`); with it the digest has a "Memories" section. */
  memories?(): Promise<Iterable<DigestMemory>>;
  /**
   * A few sentences about the week's memories from the configured LLM; undefined (or a
   * failure, logged) leaves the section without a summary.
   */
  summarizeMemories?(
    groups: ReturnType<typeof weekMemoriesByCategory>,
  ): Promise<string | undefined>;
}

export interface DigestServiceDeps {
  readonly vault: string;
  readonly folder: string;
  readonly zone: string;
  readonly clock: Clock;
  readonly store: DigestStore;
  readonly sources: DigestSources;
  /** The push sender; the digest is announced to every subscribed device. */
  readonly announcer?: ReminderDeliverer;
  readonly logger?: Logger;
}

export type DigestOutcome =
  /** Written now. */
  | { readonly status: 'written'; readonly path: string; readonly week: string }
  /** Already there (recorded, or its file exists): nothing was written. */
  | { readonly status: 'exists'; readonly path: string; readonly week: string };

/** A digest's announcement is worth showing for a day. */
const DIGEST_TTL_SECONDS = 24 * 3600;

/**
 * Writes weekly digests into the vault (docs/memory-digest-calendar.md), each at most once: a week recorded in the
 * database is never written again by the schedule, and a file already at the digest's path (the
 * plugin wrote it, or a crash came between writing and recording) is recorded, never replaced.
 */
export class DigestService {
  constructor(private readonly deps: DigestServiceDeps) {}

  /**
   * The schedule's write (the built-in weekly digest task, companion/tasks): once per week,
   * whatever happened to the file since.
   */
  async writeScheduled(week: IsoWeek): Promise<DigestOutcome> {
    const text = formatIsoWeek(week);
    const recorded = this.deps.store.get(text);
    if (recorded) {
      if (recorded.announcedAt === null) await this.announce(text, recorded.path);
      return { status: 'exists', path: recorded.path, week: text };
    }
    return this.write(week, false);
  }

  /**
   * The week a digest at `slot` covers: the one holding the day before it in the user's zone
   * (a Monday 08:00 digest covers the week that just ended, a Sunday 20:00 one the week ending).
   */
  weekDueAt(slot: number): IsoWeek {
    const day = Math.floor(instantToWall(slot, this.deps.zone) / MS_PER_DAY);
    return isoWeekOfDay(day - 1);
  }

  /** `POST /api/v1/digests` and the plugin command: writes the week unless its file exists. */
  async writeOnDemand(weekText?: string): Promise<DigestOutcome> {
    const week = weekText === undefined ? this.previousWeek() : parseIsoWeek(weekText);
    return this.write(week, true);
  }

  /** The week before the current one in the user's zone (the one a Monday digest covers). */
  previousWeek(): IsoWeek {
    const today = Math.floor(instantToWall(this.deps.clock.now(), this.deps.zone) / MS_PER_DAY);
    return isoWeekOfDay(today - 7);
  }

  private async write(week: IsoWeek, onDemand: boolean): Promise<DigestOutcome> {
    const weekText = formatIsoWeek(week);
    const path = digestPath(week, this.deps.folder);
    await this.checkFolder();
    const existing = await resolveVaultPath(this.deps.vault, path);
    if (existing.ok && existing.exists) {
      this.deps.store.recordWritten(weekText, path, this.deps.clock.now());
      return { status: 'exists', path, week: weekText };
    }
    const from = dayStart(week.monday, this.deps.zone);
    const to = dayStart(week.monday + 7, this.deps.zone);
    const completions = this.deps.sources.completions?.(from, to);
    // No await without a memory source: the scheduler's timing stays as it was.
    const memorySource = this.deps.sources.memories;
    const memories = memorySource === undefined ? undefined : await memorySource();
    const memorySummary = memories === undefined ? undefined : await this.summarize(memories, week);
    const digest = buildDigest({
      ...(memories === undefined ? {} : { memories }),
      ...(memorySummary === undefined ? {} : { memorySummary }),
      week,
      zone: this.deps.zone,
      now: this.deps.clock.now(),
      notes: this.deps.sources.notesSince(from),
      reminders: this.deps.sources.reminders(),
      missed: await this.deps.sources.missed(),
      ...(completions === undefined ? {} : { completions }),
      folder: this.deps.folder,
    });
    try {
      await createVaultFile(this.deps.vault, digest.path, digest.text);
    } catch (error) {
      // Written meanwhile (the plugin, a second request): that one stands.
      if (error instanceof VaultFileExistsError) {
        this.deps.store.recordWritten(weekText, path, this.deps.clock.now());
        return { status: 'exists', path, week: weekText };
      }
      throw error;
    }
    try {
      if (onDemand) this.deps.store.rewrite(weekText, path, this.deps.clock.now());
      else this.deps.store.recordWritten(weekText, path, this.deps.clock.now());
    } catch (error) {
      // Not recorded (the database's disk is full): take the file back, so the error that
      // follows ("nothing was saved") is true and the next try writes the digest once.
      await removeCreatedFile(this.deps.vault, digest.path, digest.text);
      throw error;
    }
    this.deps.logger?.info({ week: weekText }, 'weekly digest written');
    try {
      await this.announce(weekText, path);
    } catch (error) {
      // The digest is written and recorded; a failed announcement (the database's disk full
      // while marking it) must not answer as if it were not. It is announced again next time.
      this.deps.logger?.warn(
        { week: weekText, err: error },
        'the digest was written, but announcing it failed',
      );
    }
    return { status: 'written', path, week: weekText };
  }

  private async summarize(
    memories: Iterable<DigestMemory>,
    week: IsoWeek,
  ): Promise<string | undefined> {
    const summarize = this.deps.sources.summarizeMemories;
    const groups = weekMemoriesByCategory(memories, week);
    if (summarize === undefined || groups.length === 0) return undefined;
    try {
      return await summarize(groups);
    } catch (error) {
      // The digest is still worth writing: the groups are there without their summary.
      this.deps.logger?.warn({ err: error }, "the week's memories were not summarised");
      return undefined;
    }
  }

  /** A digest folder that is a file stops digests with a message naming it; nothing is moved. */
  private async checkFolder(): Promise<void> {
    const folder = this.deps.folder.replace(/\/+$/, '');
    try {
      const info = await stat(join(this.deps.vault, folder));
      if (!info.isDirectory()) {
        throw new VaultWriteError(
          'CONFLICT',
          `the digest folder ${folder} is a file, not a folder; rename it (or choose another digest folder) so Cairn can write digests`,
          'folder',
        );
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      if ((error as NodeJS.ErrnoException).code === 'ENOTDIR') {
        throw new VaultWriteError(
          'CONFLICT',
          `a parent of the digest folder ${folder} is a file, not a folder`,
          'folder',
        );
      }
      throw error;
    }
  }

  private async announce(week: string, path: string): Promise<void> {
    const announcer = this.deps.announcer;
    if (!announcer) return;
    const now = this.deps.clock.now();
    const payload: PushPayload = {
      title: `Your week ${week}`,
      body: 'Cairn wrote your weekly digest.',
      reminder_id: `digest-${week}`,
      occurrence: new Date(now).toISOString(),
      deep_link: reminderDeepLink(basename(this.deps.vault), path),
      actions: ['open'],
    };
    const devices = await announcer.subscriptions();
    const outcomes = await Promise.all(
      devices.map(({ id: subscriptionId }) =>
        announcer.deliver({
          subscriptionId,
          payload,
          ttlSeconds: DIGEST_TTL_SECONDS,
          topic: `digest-${week}`,
          urgency: 'high',
          attempt: 1,
        }),
      ),
    );
    const failed = outcomes.filter((outcome) => outcome.kind !== 'sent').length;
    if (failed > 0)
      this.deps.logger?.warn(
        { week, failed },
        'the digest announcement did not reach every device',
      );
    this.deps.store.markAnnounced(week, now);
  }
}
