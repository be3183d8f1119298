import { readFile, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { parseFrontMatter } from '../../shared/markdown';
import {
  findInlineReminders,
  readReminderNote,
  reminderDeepLink,
  scheduleStartInstant,
} from '../../shared/reminders';
import type { ReminderSchedule as SharedSchedule } from '../../shared/reminders';
import { compareCodeUnits } from '../../shared/protocol/json';
import { isConflictCopy } from '../vault/conflict-copies';
import { VaultExcludes } from '../vault/exclude-settings';
import type { VaultChange, VaultChangeFeed } from '../vault/vault-change';
import { replanOnVaultChange } from '../vault/replan-on-change';
import { walkVault } from '../vault/vault-walk';
import { createLogger } from '../logging';
import type { Logger } from '../logging';
import type { ReminderDefinition, FireSchedule, UnresolvedReminder } from './reminder-definition';
import type { ReminderSource } from './reminder-source';
import { readNoteEvent } from '../../shared/calendar/calendar-entries';
import type { NoteEvent, NoteEventProblem } from '../../shared/calendar/calendar-entries';

/** Notes larger than this are not read for reminders (a reminder note is a few hundred bytes). */
export const MAX_REMINDER_FILE_BYTES = 5 * 1024 * 1024;

/** Inline problems that mean "this @remind will not fire"; the others are warnings. */
const LISTED_PROBLEMS = new Set(['unresolved', 'invalid', 'unbalanced']);

export interface VaultReminderSourceOptions {
  /** The vault folder. */
  readonly vault: string;
  /** Zone for reminders that name none (the vault's). */
  readonly defaultZone: string;
  readonly logger?: Logger;
  /** Extra exclude globs on top of the plugin's; dot-folders are always excluded. */
  readonly excludeGlobs?: readonly string[];
  /**
   * The vault's live exclude rules, the same instance the indexer holds, so a rule changed at
   * run time applies to reminders too; built from data.json and `excludeGlobs` when absent.
   */
  readonly excludes?: VaultExcludes;
}

interface FileReminders {
  readonly definitions: ReminderDefinition[];
  readonly unresolved: UnresolvedReminder[];
  /** A Full Calendar event in the front matter (docs/clients.md), read on the same pass. */
  readonly event?: NoteEvent;
  readonly eventProblem?: NoteEventProblem;
}

/**
 * The scheduler's source over the vault's Markdown: reminder notes (front matter
 * `type: reminder`, read by shared/reminders' `readReminderNote`) and inline reminders
 * (`findInlineReminders`: `@remind(...)`, and read-only the Reminder and Tasks plugins' syntaxes).
 *
 * It keeps what each file holds, so a change to one file (`refreshFile`) costs one read and
 * answers exactly which reminder ids changed: those are what the scheduler re-plans. The same
 * id in several files (a note copied, or a sync conflict copy) is one reminder: a file that is
 * not a conflict copy wins, then the first path in order, so it never fires twice.
 */
export class VaultReminderSource implements ReminderSource {
  private readonly byPath = new Map<string, FileReminders>();
  /** id → path → definition: every file that claims the id. */
  private readonly claims = new Map<string, Map<string, ReminderDefinition>>();
  private readonly logger: Logger;
  private readonly exclude: VaultExcludes;
  private readonly vaultName: string;

  constructor(private readonly options: VaultReminderSourceOptions) {
    this.logger = options.logger ?? createLogger('silent');
    this.exclude =
      options.excludes ?? VaultExcludes.read(options.vault, options.excludeGlobs, this.logger);
    this.vaultName = basename(options.vault);
  }

  /** Reads every Markdown file of the vault. Call once before the scheduler starts. */
  async load(): Promise<void> {
    const { files } = await walkVault(this.options.vault, this.exclude);
    for (const file of files) {
      if (file.kind === 'markdown') await this.refreshFile(file.path);
    }
  }

  /**
   * Re-reads one vault-relative file (added or changed) and returns the ids of reminders that
   * appeared, changed or disappeared with it.
   */
  async refreshFile(path: string): Promise<string[]> {
    if (this.exclude.excludes(path) || !path.toLowerCase().endsWith('.md')) return [];
    const read = await this.readFileReminders(path);
    if (read === undefined) return this.removeFile(path);
    return this.replaceFile(path, read);
  }

  /** Forgets a deleted file, or every file under a deleted folder; returns the affected ids. */
  removeFile(path: string): string[] {
    const affected: string[] = [];
    for (const known of [...this.byPath.keys()]) {
      if (known === path || known.startsWith(`${path}/`)) {
        affected.push(...this.replaceFile(known, undefined));
      }
    }
    return affected;
  }

  /**
   * What the scheduler re-plans for one vault change (see `connectVaultReminders`): the ids of
   * reminders that came, changed or went with the file.
   */
  async applyChange(change: VaultChange): Promise<string[]> {
    return change.type === 'upsert' ? this.refreshFile(change.path) : this.removeFile(change.path);
  }

  all(): { reminders: ReminderDefinition[]; unresolved: UnresolvedReminder[] } {
    const reminders: ReminderDefinition[] = [];
    for (const id of this.claims.keys()) {
      const chosen = this.chosen(id);
      if (chosen) reminders.push(chosen);
    }
    return { reminders, unresolved: this.unresolved() };
  }

  get(ids: readonly string[]): ReminderDefinition[] {
    const found: ReminderDefinition[] = [];
    for (const id of ids) {
      const chosen = this.chosen(id);
      if (chosen) found.push(chosen);
    }
    return found;
  }

  /** Notes with Full Calendar front matter, for the calendar feed and week. */
  *events(): Iterable<NoteEvent> {
    for (const file of this.byPath.values()) if (file.event) yield file.event;
  }

  /** Notes whose calendar front matter is invalid, each naming the file and field. */
  eventProblems(): NoteEventProblem[] {
    const problems: NoteEventProblem[] = [];
    for (const file of this.byPath.values())
      if (file.eventProblem) problems.push(file.eventProblem);
    return problems;
  }

  unresolved(): UnresolvedReminder[] {
    const list: UnresolvedReminder[] = [];
    for (const file of this.byPath.values()) list.push(...file.unresolved);
    return list;
  }

  private chosen(id: string): ReminderDefinition | undefined {
    const claims = this.claims.get(id);
    if (!claims || claims.size === 0) return undefined;
    const paths = [...claims.keys()].sort(
      (a, b) => Number(isConflictCopy(a)) - Number(isConflictCopy(b)) || compareCodeUnits(a, b),
    );
    return claims.get(paths[0]!);
  }

  private replaceFile(path: string, next: FileReminders | undefined): string[] {
    const previous = this.byPath.get(path);
    const affected = new Set<string>();
    for (const definition of previous?.definitions ?? []) {
      affected.add(definition.id);
      const claims = this.claims.get(definition.id);
      claims?.delete(path);
      if (claims?.size === 0) this.claims.delete(definition.id);
    }
    if (next === undefined) {
      this.byPath.delete(path);
    } else {
      this.byPath.set(path, next);
      for (const definition of next.definitions) {
        affected.add(definition.id);
        let claims = this.claims.get(definition.id);
        if (!claims) {
          claims = new Map();
          this.claims.set(definition.id, claims);
        }
        // One file may hold the same id only once: the first wins (the grammar reports the rest).
        if (!claims.has(path)) claims.set(path, definition);
      }
    }
    return [...affected];
  }

  /** The reminders in one file, or undefined when it cannot be read (gone, too big). */
  private async readFileReminders(path: string): Promise<FileReminders | undefined> {
    const absolute = join(this.options.vault, path);
    let text: string;
    try {
      const info = await stat(absolute);
      if (!info.isFile()) return undefined;
      if (info.size > MAX_REMINDER_FILE_BYTES) {
        this.logger.warn(
          { bytes: info.size },
          `a note over ${MAX_REMINDER_FILE_BYTES} bytes was not read for reminders`,
        );
        return undefined;
      }
      text = await readFile(absolute, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    return this.parse(path, text);
  }

  /** Reminder note and inline reminders of one file's text. Never throws. */
  parse(path: string, text: string): FileReminders {
    const definitions: ReminderDefinition[] = [];
    const unresolved: UnresolvedReminder[] = [];
    const zone = this.options.defaultZone;
    const front = parseFrontMatter(text);
    const data = front.ok ? front.data : {};

    if (data.type === 'reminder') {
      const read = readReminderNote(data, path, { defaultZone: zone });
      const schedule = read.ok ? toFireSchedule(read.note.schedule) : undefined;
      if (read.ok && typeof schedule === 'object') {
        const { note } = read;
        definitions.push({
          id: note.id,
          title: note.title,
          path,
          schedule,
          status: note.status,
          taskChecked: false,
          ...(note.snoozedUntil === undefined ? {} : { snoozedUntil: note.snoozedUntil }),
          deepLink: reminderDeepLink(this.vaultName, path),
        });
      } else {
        const id = typeof data.id === 'string' && data.id.trim() !== '' ? data.id.trim() : path;
        unresolved.push({
          id,
          title: typeof data.title === 'string' ? data.title : basename(path, '.md'),
          path,
          detail: read.ok
            ? String(schedule)
            : read.problems.map((problem) => problem.message).join('; '),
          problem:
            !read.ok && read.problems.some((problem) => problem.field === 'timezone')
              ? 'bad_zone'
              : 'invalid',
        });
      }
    }

    const inline = findInlineReminders(text, { path, defaultZone: zone });
    for (const reminder of inline.reminders) {
      const schedule = toFireSchedule(reminder.schedule);
      if (typeof schedule === 'string') {
        unresolved.push({
          id: reminder.id,
          title: reminder.title,
          path,
          line: reminder.line,
          detail: schedule,
          problem: 'invalid',
        });
        continue;
      }
      definitions.push({
        id: reminder.id,
        title: reminder.title,
        path,
        line: reminder.line,
        schedule,
        status: 'active',
        taskChecked: reminder.taskState === 'checked',
        deepLink: reminderDeepLink(this.vaultName, path, reminder.blockId),
      });
    }
    for (const problem of inline.problems) {
      if (!LISTED_PROBLEMS.has(problem.kind)) continue;
      unresolved.push({
        id: problem.blockId ?? `${path}:${problem.line}`,
        title: problem.title ?? problem.token,
        path,
        line: problem.line,
        detail: problem.message,
        problem:
          problem.kind === 'unresolved'
            ? 'natural_language'
            : problem.field === 'zone'
              ? 'bad_zone'
              : 'invalid',
      });
    }
    const calendar = readNoteEvent(data, path, zone);
    if (calendar !== undefined && 'problem' in calendar) {
      this.logger.warn({ path, field: calendar.problem.field }, calendar.problem.message);
    }
    return {
      definitions,
      unresolved,
      ...(calendar === undefined
        ? {}
        : 'event' in calendar
          ? { event: calendar.event }
          : { eventProblem: calendar.problem }),
    };
  }
}

/**
 * Keeps the scheduler in step with the vault: each index change re-reads that file and re-plans
 * only the reminders it touched. Changes are applied one at a time, in order. Returns the
 * unsubscribe function (call it on close).
 */
export function connectVaultReminders(
  feed: VaultChangeFeed,
  source: VaultReminderSource,
  scheduler: { replan(ids?: readonly string[]): Promise<void> },
  logger: Logger,
  /** Changes received before this settles wait for it (e.g. the scheduler's start). */
  ready: Promise<unknown> = Promise.resolve(),
): { close(): Promise<void> } {
  return replanOnVaultChange(feed, { name: 'reminders', source }, scheduler, logger, ready);
}

function toFireSchedule(schedule: SharedSchedule): FireSchedule | string {
  if (schedule.kind === 'once') {
    try {
      return { kind: 'once', at: scheduleStartInstant(schedule), zone: schedule.zone };
    } catch (error) {
      return `due: ${(error as Error).message}`;
    }
  }
  return { kind: 'recurring', rrule: schedule.rrule, start: schedule.start, zone: schedule.zone };
}
