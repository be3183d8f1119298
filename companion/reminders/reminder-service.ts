import { compareCodeUnits } from '../../shared/protocol/json';
import { randomBytes as nodeRandomBytes } from 'node:crypto';
import { unlink } from 'node:fs/promises';
import type { Clock } from '../../shared/ports';
import {
  caseInsensitiveExists,
  describeFrontMatterError,
  newNoteId,
  newShortId,
  parseFrontMatter,
  uniqueNotePath,
  updateFrontMatter,
} from '../../shared/markdown';
import type { RandomBytes } from '../../shared/markdown';
import type {
  Reminder,
  ReminderCreate,
  ReminderListQuery,
  ReminderListResponse,
  ReminderPatch,
} from '../../shared/protocol/reminders';
import { SNOOZE_MINUTES_MAX } from '../../shared/protocol/reminders';
import {
  buildReminderNoteFile,
  formatInZone,
  nextOccurrences,
  previousOccurrence,
  readReminderNote,
  splitTrailingZone,
} from '../../shared/reminders';
import type { ReminderNote } from '../../shared/reminders';
import { ApiHttpError } from '../http/api-error';
import { createOnce } from '../idempotency/content-dedup';
import type { WriteMemory } from '../idempotency/write-memory';
import { decodeCursor, encodeCursor } from '../http/cursor';
import type { ReminderDefinition } from './reminder-definition';
import type { ReminderScheduler } from './scheduler';
import type { VaultReminderSource } from './vault-reminder-source';
import {
  createVaultFile,
  editVaultFile,
  folderEntries,
  VaultWriteError,
} from '../vault/atomic-write';
import { resolveVaultPath } from '../vault/paths';
import { inDryRun, stopForDryRun } from '../vault/dry-run';
import { currentPathRules, pathAllowed } from '../auth/path-rules';
import {
  checkTaskEdit,
  NotATaskLineError,
  onceTokenText,
  removeTokenEdit,
  rewriteTokenEdit,
  uncheckTaskEdit,
} from './inline-edit';
import { reminderView, wallStart } from './reminder-view';
import { readRequestTime, readRequestZone } from './time-input';

export interface ReminderServiceDeps {
  readonly vault: string;
  /** Vault-relative folder new reminder notes go into. */
  readonly folder: string;
  /** The vault's zone: reminders that name none are read in it. */
  readonly defaultZone: string;
  readonly clock: Clock;
  readonly scheduler: ReminderPlan;
  readonly source: VaultReminderSource;
  /** Remembers creates for the five-minute dedup of identical ones (companion/idempotency). */
  readonly memory: WriteMemory;
  readonly randomBytes?: RandomBytes;
}

/**
 * What the service needs from the scheduler: its plan (next fire times) and the delivery state
 * it changes. The running `ReminderScheduler`, or a `ReadOnlyReminderPlan` when no companion runs
 * (the command line writes reminder notes but must not be a second scheduler).
 */
export type ReminderPlan = Pick<
  ReminderScheduler,
  | 'replan'
  | 'nextFire'
  | 'pendingSnooze'
  | 'isDone'
  | 'occurrences'
  | 'snoozeOccurrence'
  | 'completeOccurrence'
  | 'dismissMissed'
  | 'fireTimesAround'
>;

/** A one-off due further back than this is refused on create: it would never fire. */
const PAST_TOLERANCE_MS = 60_000;
/** "Done"/"snooze" without an occurrence mean the one that rang within this window, else the next. */
const CURRENT_OCCURRENCE_WINDOW_MS = 24 * 3_600_000;
/** Attempts at a free file name when another writer takes the chosen one meanwhile. */
const CREATE_ATTEMPTS = 3;

/**
 * The reminder API's behaviour over the vault (docs/vault-format.md, companion/README.md): reads come from the scheduler's
 * source and plan; every write goes through `editVaultFile`/`createVaultFile` and is followed by
 * an immediate re-read of that file (not waiting for the watcher), so the next GET shows it.
 *
 * Decisions:
 * - **Done** on a one-off: a reminder note gets `status: done`; a task line gets `- [x]`; a
 *   plain line's occurrence is acknowledged in the companion (nothing in the Markdown changes).
 *   On a recurring reminder (note or line) done acknowledges one occurrence only, in the
 *   companion's delivery state: the given one, else the one that rang in the last 24 h, else
 *   the next. To end a series, PATCH `status: done` (note) or check the line.
 * - **Snooze** (docs/reminders.md) postpones one ring, never earlier than its own time: a
 *   one-off note gets `snoozed_until`; lines of every syntax and occurrences of a series are
 *   delivery state, so the user's text and rules stay as written.
 * - **DELETE** is the least destructive change that stops the reminder: a note gets
 *   `status: cancelled` (the file and its body stay); an inline reminder loses its
 *   `@remind(...)` token, the line's words and block id stay.
 */
export class ReminderService {
  private readonly randomBytes: RandomBytes;

  constructor(private readonly deps: ReminderServiceDeps) {
    this.randomBytes = deps.randomBytes ?? ((count) => new Uint8Array(nodeRandomBytes(count)));
  }

  list(query: ReminderListQuery): ReminderListResponse {
    const zone = this.deps.defaultZone;
    const from = query.from === undefined ? undefined : readRequestTime(query.from, zone, 'from');
    const to = query.to === undefined ? undefined : readRequestTime(query.to, zone, 'to', 'end');
    if (from !== undefined && to !== undefined && to < from) {
      throw new ApiHttpError('VALIDATION_ERROR', 'to is before from', 'to');
    }
    const limit = query.limit ?? 50;
    const fingerprint = JSON.stringify([query.status, query.from, query.to]);
    const offset = query.cursor === undefined ? 0 : decodeCursor(query.cursor, fingerprint);

    const rows: Array<{ view: Reminder; next: number | undefined }> = [];
    const rules = currentPathRules();
    for (const definition of this.deps.source.all().reminders) {
      if (!pathAllowed(rules, definition.path)) continue;
      const view = reminderView(definition, this.deps.scheduler);
      if (query.status !== undefined && view.status !== query.status) continue;
      const next = view.next_fire === null ? undefined : Date.parse(view.next_fire ?? '');
      if (from !== undefined && (next === undefined || next < from)) continue;
      if (to !== undefined && (next === undefined || next > to)) continue;
      rows.push({ view, next });
    }
    rows.sort(
      (a, b) =>
        (a.next ?? Number.POSITIVE_INFINITY) - (b.next ?? Number.POSITIVE_INFINITY) ||
        compareCodeUnits(a.view.title, b.view.title) ||
        compareCodeUnits(a.view.id, b.view.id),
    );
    const page = rows.slice(offset, offset + limit).map((row) => row.view);
    const nextOffset = offset + page.length;
    return {
      reminders: page,
      next_cursor:
        page.length > 0 && nextOffset < rows.length ? encodeCursor(nextOffset, fingerprint) : null,
    };
  }

  /**
   * Reminders not done whose time has passed (`overdue_since` set), oldest first: the knowledge
   * health report's "overdue reminders".
   */
  overdue(): Reminder[] {
    const rules = currentPathRules();
    return this.deps.source
      .all()
      .reminders.filter((definition) => pathAllowed(rules, definition.path))
      .map((definition) => reminderView(definition, this.deps.scheduler))
      .filter((view) => view.status === 'active' && typeof view.overdue_since === 'string')
      .sort((a, b) => compareCodeUnits(a.overdue_since ?? '', b.overdue_since ?? ''));
  }

  get(id: string): Reminder {
    return reminderView(this.definition(id), this.deps.scheduler);
  }

  occurrences(id: string, from: string | undefined, count: number): string[] {
    const definition = this.definition(id);
    const start =
      from === undefined
        ? this.deps.clock.now()
        : readRequestTime(from, definition.schedule.zone, 'from');
    const list = this.deps.scheduler.occurrences(id, start, count);
    if (list === undefined) {
      throw new ApiHttpError(
        'NOT_FOUND',
        `reminder ${id} is not scheduled (its definition is invalid)`,
      );
    }
    return list;
  }

  /**
   * Writes a reminder note. The same title (case and spacing aside), due instant, zone and rule
   * asked again within five minutes answers the first reminder, `deduplicated`, while it is
   * still active; anything different is a new reminder.
   */
  async create(
    body: ReminderCreate,
    /** Markdown under the front matter, e.g. a link back to the memory it was made from. */
    options: { noteBody?: string } = {},
  ): Promise<{ reminder: Reminder; deduplicated: boolean }> {
    const now = this.deps.clock.now();
    const zone =
      body.timezone === undefined ? this.deps.defaultZone : readRequestZone(body.timezone);
    const id = newNoteId(this.randomBytes);
    const note = this.validNote(
      {
        id,
        type: 'reminder',
        title: body.title.replace(/\s+/g, ' ').trim(),
        due: body.due,
        timezone: zone,
        ...(body.repeat === undefined ? {} : { repeat: body.repeat }),
        status: 'active',
        created: formatInZone(now, zone),
      },
      '',
    );
    if (note.repeat === undefined && note.due < now - PAST_TOLERANCE_MS) {
      throw new ApiHttpError(
        'UNPROCESSABLE',
        `due: ${formatInZone(note.due, zone)} is in the past; a one-off reminder there would never fire`,
        'due',
      );
    }
    const identical = [note.title.toLowerCase(), note.due, note.timezone, note.repeat ?? null];
    const made = await createOnce<Reminder>(
      this.deps.memory,
      'reminder',
      identical,
      (earlier) => {
        const [current] = this.deps.source.get([earlier.id]);
        if (current === undefined || current.status !== 'active') return undefined;
        return reminderView(current, this.deps.scheduler);
      },
      () => this.writeNote(note, options.noteBody),
      (written) => this.removeCreated(written),
    );
    return { reminder: made.value, deduplicated: made.deduplicated };
  }

  /**
   * Takes back a reminder note `create` wrote and unschedules it: its answer could not be
   * remembered after all (the database's disk is full), so the error must mean nothing was saved.
   */
  async removeCreated(reminder: Reminder): Promise<void> {
    const resolved = await resolveVaultPath(this.deps.vault, reminder.path, 'write');
    if (!resolved.ok || !resolved.exists) return;
    await this.undoCreate({ path: resolved.relative, absolute: resolved.absolute }, reminder.id);
  }

  private async writeNote(note: ReminderNote, noteBody = ''): Promise<Reminder> {
    const id = note.id;
    const content = buildReminderNoteFile(note, noteBody);
    for (let attempt = 1; ; attempt++) {
      const taken = caseInsensitiveExists(await folderEntries(this.deps.vault, this.deps.folder));
      const path = uniqueNotePath(this.deps.folder, note.title, taken, () =>
        newShortId(this.randomBytes),
      );
      let created: { path: string; absolute: string };
      try {
        created = await createVaultFile(this.deps.vault, path, content);
      } catch (error) {
        const raced = error instanceof VaultWriteError && error.code === 'CONFLICT';
        if (!raced || attempt >= CREATE_ATTEMPTS) throw error;
        continue;
      }
      try {
        await this.refresh(created.path, [id]);
        return this.get(id);
      } catch (error) {
        // Whole or nothing: a reminder whose creation answers an error must not fire later
        // (a retrying client would get two). Take the note back out and unschedule it.
        await this.undoCreate(created, id);
        throw error;
      }
    }
  }

  async patch(id: string, requested: ReminderPatch): Promise<Reminder> {
    const patch =
      requested.timezone === undefined
        ? requested
        : { ...requested, timezone: readRequestZone(requested.timezone) };
    const definition = this.definition(id);
    if (definition.line === undefined) return this.patchNote(definition, patch);
    return this.patchInline(definition, patch);
  }

  async cancel(id: string): Promise<Reminder> {
    const definition = this.definition(id);
    const before = reminderView(definition, this.deps.scheduler);
    if (definition.line === undefined) {
      await this.editNote(definition, () => ({ status: 'cancelled' }));
      return this.get(id);
    }
    await this.editFile(definition, removeTokenEdit(definition.path, this.deps.defaultZone, id));
    return { ...before, status: 'cancelled', next_fire: null };
  }

  /**
   * Snoozes one ring of the reminder by `minutes` (docs/reminders.md): from now when its time
   * has come (it rang, or was missed), else from its own time, so a snooze never moves a
   * reminder earlier. A one-off reminder note records `snoozed_until`; everything else (inline
   * lines of every syntax, one occurrence of a series) is delivery state, so the user's line
   * keeps its text and a series keeps its rule.
   */
  async snooze(id: string, minutes: number, occurrence?: string): Promise<Reminder> {
    if (!Number.isInteger(minutes) || minutes < 1 || minutes > SNOOZE_MINUTES_MAX) {
      throw new ApiHttpError(
        'VALIDATION_ERROR',
        `minutes: ${String(minutes)} is not a whole number of minutes from 1 to ${SNOOZE_MINUTES_MAX} (a year)`,
        'minutes',
      );
    }
    const definition = this.definition(id);
    this.assertActive(definition);
    const now = this.deps.clock.now();
    const target = this.snoozeTarget(definition, occurrence, now);
    const until = Math.ceil((Math.max(target, now) + minutes * 60_000) / 60_000) * 60_000;
    const { schedule } = definition;
    if (schedule.kind === 'once' && definition.line === undefined) {
      await this.editNote(definition, () => ({
        snoozed_until: formatInZone(until, schedule.zone),
      }));
      return this.get(id);
    }
    scheduleOnly(definition, `snooze ${id} until ${formatInZone(until, schedule.zone)}`);
    this.deps.scheduler.snoozeOccurrence(id, target, until);
    return this.get(id);
  }

  async done(id: string, occurrence?: string): Promise<Reminder> {
    const definition = this.definition(id);
    const { schedule } = definition;
    if (schedule.kind === 'recurring') {
      this.assertActive(definition);
      scheduleOnly(definition, `complete one occurrence of ${id}`);
      this.deps.scheduler.completeOccurrence(id, this.targetOccurrence(definition, occurrence));
      return this.get(id);
    }
    // A one-off that is done leaves the missed list (it may be there as past_due or expired).
    const dismiss = () => this.deps.scheduler.dismissMissed(id, schedule.at);
    if (definition.line === undefined) {
      if (definition.status !== 'done') await this.editNote(definition, () => ({ status: 'done' }));
      dismiss();
      return this.get(id);
    }
    if (definition.taskChecked) {
      scheduleOnly(definition, `take ${id} off the missed list`);
      dismiss();
      return this.get(id);
    }
    try {
      await this.editFile(definition, checkTaskEdit(definition.path, this.deps.defaultZone, id));
      dismiss();
      return this.viewAfterRewrite(definition, 'done');
    } catch (error) {
      if (!(error instanceof NotATaskLineError)) throw error;
    }
    // A plain line: done once fired and acknowledged (docs/vault-format.md), which is delivery state.
    const target =
      occurrence === undefined
        ? schedule.at
        : readRequestTime(occurrence, schedule.zone, 'occurrence');
    scheduleOnly(definition, `mark ${id} done`);
    this.deps.scheduler.completeOccurrence(id, target);
    return this.get(id);
  }

  // -------------------------------------------------------------------------------------------

  private definition(id: string): ReminderDefinition {
    const [definition] = this.deps.source.get([id]);
    // A token limited to folders (auth/path-rules.ts) sees no reminder written outside them.
    if (definition && !pathAllowed(currentPathRules(), definition.path)) {
      throw new ApiHttpError('NOT_FOUND', `no reminder with id ${id}`);
    }
    if (definition) return definition;
    // On the missed list as unresolved: there, but nothing can be computed from it (a time
    // without an offset cannot be read in a zone that does not exist). Say so, not "no reminder".
    const unresolved = this.deps.source.unresolved().find((entry) => entry.id === id);
    if (unresolved) {
      throw new ApiHttpError(
        'UNPROCESSABLE',
        `reminder ${id} in ${unresolved.path} cannot be scheduled: ${unresolved.detail}; fix it in the note`,
        unresolved.problem === 'bad_zone' ? 'timezone' : undefined,
      );
    }
    throw new ApiHttpError('NOT_FOUND', `no reminder with id ${JSON.stringify(id)}`);
  }

  private assertActive(definition: ReminderDefinition): void {
    const status = definition.taskChecked ? 'done' : definition.status;
    if (status !== 'active') {
      throw new ApiHttpError(
        'CONFLICT',
        `reminder ${definition.id} is ${status}; set it active again first`,
      );
    }
  }

  /** The occurrence "done" is about: the given one, else the one that just rang, else the next. */
  private targetOccurrence(definition: ReminderDefinition, occurrence: string | undefined): number {
    const { schedule } = definition;
    if (occurrence !== undefined) return readRequestTime(occurrence, schedule.zone, 'occurrence');
    const now = this.deps.clock.now();
    if (schedule.kind === 'recurring') {
      const previous = previousOccurrence(
        { rrule: schedule.rrule, start: schedule.start },
        now,
        schedule.zone,
      );
      if (previous !== undefined && previous > now - CURRENT_OCCURRENCE_WINDOW_MS) return previous;
    } else if (schedule.at <= now) {
      return schedule.at;
    }
    const next = this.deps.scheduler.nextFire(definition.id);
    if (next === undefined) {
      throw new ApiHttpError('CONFLICT', `reminder ${definition.id} has no occurrence left`);
    }
    return next;
  }

  /**
   * The ring a snooze is about: the given occurrence, else the reminder's current fire time
   * (a one-off: its pending ring, else the one that rang; a series: the one that rang in the
   * last 24 h, else the next). Fire times include earlier snoozes' ends, so snoozing again
   * moves the same ring instead of adding one.
   */
  private snoozeTarget(
    definition: ReminderDefinition,
    occurrence: string | undefined,
    now: number,
  ): number {
    const { schedule } = definition;
    if (occurrence !== undefined) return readRequestTime(occurrence, schedule.zone, 'occurrence');
    const around = this.deps.scheduler.fireTimesAround(definition.id, now);
    const { latest, next } = around ?? { latest: undefined, next: undefined };
    const rang = latest !== undefined && latest > now - CURRENT_OCCURRENCE_WINDOW_MS;
    const target = schedule.kind === 'once' ? (next ?? latest) : rang ? latest : (next ?? latest);
    if (target === undefined) {
      throw new ApiHttpError('CONFLICT', `reminder ${definition.id} has no occurrence left`);
    }
    return target;
  }

  private async patchNote(definition: ReminderDefinition, patch: ReminderPatch): Promise<Reminder> {
    await this.editNote(definition, (data) => {
      const merged: Record<string, unknown> = { ...data };
      const changes: Record<string, unknown> = {};
      if (patch.title !== undefined) changes.title = patch.title.replace(/\s+/g, ' ').trim();
      if (patch.timezone !== undefined) changes.timezone = patch.timezone;
      if (patch.due !== undefined) changes.due = patch.due;
      if (patch.repeat !== undefined) changes.repeat = patch.repeat ?? undefined;
      if (patch.status !== undefined) changes.status = patch.status;
      Object.assign(merged, changes);
      const note = this.validNote(merged, definition.path);
      if (patch.due !== undefined) changes.due = formatInZone(note.due, note.timezone);
      if (patch.due !== undefined || patch.repeat !== undefined || patch.timezone !== undefined) {
        // A new time supersedes an earlier snooze.
        if (data.snoozed_until !== undefined) changes.snoozed_until = undefined;
      }
      if (typeof patch.repeat === 'string') changes.repeat = note.repeat;
      return changes;
    });
    return this.get(definition.id);
  }

  private async patchInline(
    definition: ReminderDefinition,
    patch: ReminderPatch,
  ): Promise<Reminder> {
    if (patch.title !== undefined) {
      throw new ApiHttpError(
        'UNPROCESSABLE',
        "title: an inline reminder's title is its line's text; edit the note to change it",
        'title',
      );
    }
    const { path, id } = definition;
    const zone = this.deps.defaultZone;
    // Every check runs before anything is written.
    let tokenEdit: ((text: string) => string) | undefined;
    if (patch.due !== undefined || patch.repeat !== undefined || patch.timezone !== undefined) {
      const tokenZone = patch.timezone ?? definition.schedule.zone;
      const field =
        patch.repeat !== undefined ? 'repeat' : patch.due !== undefined ? 'due' : 'timezone';
      const zoneSuffix = tokenZone === zone ? '' : ` ${tokenZone}`;
      const recurringAfter =
        typeof patch.repeat === 'string' ||
        (patch.repeat === undefined && definition.schedule.kind === 'recurring');
      let inner: (reminder: unknown, written: string) => string;
      if (recurringAfter && patch.due !== undefined) {
        // PATCH changes only what it names: a due must not silently turn a series into a one-off.
        throw new ApiHttpError(
          'UNPROCESSABLE',
          'due: an inline recurring reminder has no start date to move (its rule fixes the time); change repeat, or send repeat: null with due to make it a one-off',
          'due',
        );
      } else if (typeof patch.repeat === 'string') {
        const rule = `RRULE:${patch.repeat.replace(/^RRULE:/, '')}${zoneSuffix}`;
        inner = () => rule;
      } else if (recurringAfter) {
        // Only the zone changes: the rule keeps the words the user wrote (`every monday 09:00`).
        inner = (_reminder, written) => `${splitTrailingZone(written).body}${zoneSuffix}`;
      } else {
        const due =
          patch.due !== undefined
            ? readRequestTime(patch.due, tokenZone, 'due')
            : definition.schedule.kind === 'once'
              ? definition.schedule.at
              : undefined;
        if (due === undefined) {
          throw new ApiHttpError(
            'UNPROCESSABLE',
            'due: turning a recurring line into a one-off needs a due time',
            'due',
          );
        }
        const text = onceTokenText(due, tokenZone, zone);
        inner = () => text;
      }
      tokenEdit = rewriteTokenEdit(path, zone, id, inner, field);
    }
    if (patch.status !== undefined) {
      if (patch.status === 'cancelled') return this.cancel(id);
      await this.editFile(
        definition,
        patch.status === 'done' ? checkTaskEdit(path, zone, id) : uncheckTaskEdit(path, zone, id),
      );
    }
    if (tokenEdit !== undefined) await this.editFile(definition, tokenEdit);
    return this.viewAfterRewrite(definition);
  }

  /** Front-matter edit of a reminder note: `change` gets the current data, returns the keys to set. */
  private async editNote(
    definition: ReminderDefinition,
    change: (data: Record<string, unknown>) => Record<string, unknown>,
  ): Promise<void> {
    await this.editFile(definition, (text) => {
      const front = parseFrontMatter(text);
      if (!front.ok) {
        throw new VaultWriteError(
          'UNPROCESSABLE',
          describeFrontMatterError(definition.path, front.error),
        );
      }
      if (front.data.id !== definition.id && String(front.data.id) !== definition.id) {
        throw new VaultWriteError(
          'NOT_FOUND',
          `${definition.path} no longer holds reminder ${definition.id}`,
        );
      }
      const updated = updateFrontMatter(text, change(front.data));
      if (!updated.ok) {
        throw new VaultWriteError(
          'UNPROCESSABLE',
          describeFrontMatterError(definition.path, updated.error),
          updated.error.field,
        );
      }
      return updated.text;
    });
  }

  private async editFile(
    definition: ReminderDefinition,
    edit: (text: string) => string,
  ): Promise<void> {
    const edited = await editVaultFile(this.deps.vault, definition.path, edit);
    if (edited.changed) await this.refresh(edited.path, [definition.id]);
  }

  /** Removes a reminder note just created and forgets it; best effort, the error is the caller's. */
  private async undoCreate(created: { path: string; absolute: string }, id: string): Promise<void> {
    await unlink(created.absolute).catch(() => undefined);
    await this.refresh(created.path, [id]).catch(() => undefined);
  }

  /** Re-reads the file into the source and re-plans what it touched, before answering. */
  private async refresh(path: string, ids: readonly string[]): Promise<void> {
    const changed = await this.deps.source.refreshFile(path);
    await this.deps.scheduler.replan([...new Set([...changed, ...ids])]);
  }

  /**
   * The reminder after its line was rewritten. A line without a block id is identified by its
   * text, so the rewrite gives it a new id: look it up by path and line.
   */
  private viewAfterRewrite(definition: ReminderDefinition, fallbackStatus?: 'done'): Reminder {
    const [same] = this.deps.source.get([definition.id]);
    if (same) return reminderView(same, this.deps.scheduler);
    const moved = this.deps.source
      .all()
      .reminders.find((entry) => entry.path === definition.path && entry.line === definition.line);
    if (moved) return reminderView(moved, this.deps.scheduler);
    const view = reminderView(definition, this.deps.scheduler);
    return { ...view, status: fallbackStatus ?? view.status, next_fire: null };
  }

  /** Validates reminder-note front matter with the shared model; a problem is a 422 naming its key. */
  private validNote(data: Record<string, unknown>, path: string): ReminderNote {
    const read = readReminderNote(data, path, { defaultZone: this.deps.defaultZone });
    if (!read.ok) {
      const [first] = read.problems;
      throw new ApiHttpError(
        'UNPROCESSABLE',
        read.problems.map((problem) => problem.message).join('; '),
        first?.field,
      );
    }
    const { note } = read;
    if (note.repeat !== undefined) {
      const first = nextOccurrences(
        { rrule: note.repeat, start: note.schedule.start },
        wallStart(note.schedule.start, note.timezone) - 1,
        note.timezone,
        1,
      );
      if (first.length === 0) {
        throw new ApiHttpError(
          'UNPROCESSABLE',
          `repeat: ${note.repeat} never occurs from ${formatInZone(note.due, note.timezone)}`,
          'repeat',
        );
      }
    }
    return note;
  }
}

/**
 * Before a change kept only in the companion's schedule (no file changes): a dry run
 * (vault/dry-run.ts) says it and stops here, as a file write would.
 */
function scheduleOnly(definition: ReminderDefinition, what: string): void {
  if (!inDryRun()) return;
  stopForDryRun({
    path: definition.path,
    action: 'schedule',
    before: null,
    after: null,
    diff: `${what} (in the companion's schedule; ${definition.path} is unchanged)\n`,
  });
}
