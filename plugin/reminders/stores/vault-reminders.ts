/**
 * The chat's ReminderReader and ReminderWriter over reminder notes in the vault (docs/vault-format.md),
 * for when no companion is paired. Notes are read with shared/reminders' `readReminderNote`
 * and written with `buildReminderNoteFile`; snooze, done and undo change only their own
 * front-matter keys (`updateFrontMatter`), through the vault's atomic `process`. A reminder note
 * that does not read (a bad `due`, say) is left out of lists: the reminders view reports it.
 */
import {
  ChatPortError,
  type ReminderQuery,
  type ReminderReader,
  type ReminderWriter,
} from '../../../shared/chat/ports';
import {
  FrontMatterValueError,
  newNoteId,
  newShortId,
  parseFrontMatter,
  uniqueNotePath,
  updateFrontMatter,
  type RandomBytes,
} from '../../../shared/markdown';
import type { Clock } from '../../../shared/ports';
import { memoryLinkBody } from '../../../shared/memory';
import type { MemoryItem } from '../../../shared/protocol/memories';
import type { Reminder } from '../../../shared/protocol/reminders';
import {
  buildReminderNoteFile,
  formatInZone,
  nextFire,
  parseLocalDateTime,
  readReminderNote,
  wallToInstant,
  type ReminderNote,
} from '../../../shared/reminders';
import type { ChatVaultFiles } from '../../chat/chat-vault-files';

export interface VaultRemindersOptions {
  files: ChatVaultFiles;
  clock: Clock;
  /** The vault's zone: the default for notes without `timezone`. */
  zone: () => string;
  /** Settings' folder for new reminder notes. */
  remindersFolder: () => string;
  randomBytes: RandomBytes;
}

const MS_PER_DAY = 86_400_000;
const DEFAULT_LIMIT = 50;

export class VaultReminders implements ReminderReader, ReminderWriter {
  constructor(private readonly options: VaultRemindersOptions) {}

  async list(query: ReminderQuery): Promise<Reminder[]> {
    const now = this.options.clock.now();
    const reminders = (await this.readAll())
      .map((note) => toReminder(note, now))
      .filter((reminder) => query.status === undefined || reminder.status === query.status)
      .filter((reminder) => inRange(reminder, query.from, query.to));
    reminders.sort((a, b) => whenOf(a) - whenOf(b) || a.title.localeCompare(b.title));
    return reminders.slice(0, query.limit ?? DEFAULT_LIMIT);
  }

  async get(id: string): Promise<Reminder | undefined> {
    const note = (await this.readAll()).find((candidate) => candidate.id === id);
    return note === undefined ? undefined : toReminder(note, this.options.clock.now());
  }

  async create(input: {
    title: string;
    due: string;
    timezone: string;
    repeat?: string;
    memory?: MemoryItem;
  }): Promise<Reminder> {
    const { files, clock, randomBytes } = this.options;
    const id = newNoteId(randomBytes);
    const path = uniqueNotePath(
      this.options.remindersFolder(),
      input.title,
      (p) => files.exists(p),
      () => newShortId(randomBytes),
    );
    const data: Record<string, unknown> = {
      id,
      type: 'reminder',
      title: input.title,
      due: input.due.replace(' ', 'T'),
      timezone: input.timezone,
      status: 'active',
      created: formatInZone(clock.now(), input.timezone),
    };
    if (input.repeat !== undefined) data.repeat = input.repeat;
    const read = readReminderNote(data, path);
    if (!read.ok) {
      const [first] = read.problems;
      throw new ChatPortError('VALIDATION_ERROR', first?.message ?? 'not a reminder', first?.field);
    }
    // A reminder about a memory links its line instead (docs/memory-digest-calendar.md).
    const body =
      input.memory === undefined ? 'Created from the Cairn chat.\n' : memoryLinkBody(input.memory);
    await files.create(path, buildReminderNoteFile(read.note, body));
    return toReminder(read.note, clock.now());
  }

  async snooze(id: string, minutes: number): Promise<Reminder> {
    const note = await this.mustFind(id);
    const until = this.options.clock.now() + minutes * 60_000;
    await this.change(note, { snoozed_until: formatInZone(until, note.timezone) });
    return toReminder({ ...note, snoozedUntil: until }, this.options.clock.now());
  }

  async complete(id: string): Promise<Reminder> {
    const note = await this.mustFind(id);
    await this.change(note, { status: 'done' });
    return toReminder({ ...note, status: 'done' }, this.options.clock.now());
  }

  async delete(id: string): Promise<void> {
    const note = await this.mustFind(id);
    await this.options.files.trash(note.path);
  }

  async restore(previous: Reminder): Promise<void> {
    const note = await this.mustFind(previous.id);
    await this.change(note, {
      status: previous.status,
      snoozed_until: previous.snoozed_until ?? undefined,
    });
  }

  private async change(note: ReminderNote, changes: Record<string, unknown>): Promise<void> {
    let failure: string | undefined;
    await this.options.files.process(note.path, (current) => {
      const updated = updateFrontMatter(current, changes);
      if (updated.ok) return updated.text;
      failure = `${note.path} line ${updated.error.line}: ${updated.error.message}`;
      return current;
    });
    if (failure !== undefined) throw new ChatPortError('CONFLICT', failure);
  }

  private async mustFind(id: string): Promise<ReminderNote> {
    const note = (await this.readAll()).find((candidate) => candidate.id === id);
    if (note === undefined)
      throw new ChatPortError('NOT_FOUND', `no reminder note has id ${id}`, 'id');
    return note;
  }

  private async readAll(): Promise<ReminderNote[]> {
    const { files } = this.options;
    const notes: ReminderNote[] = [];
    for (const path of files.notesOfType('reminder')) {
      const text = await files.read(path);
      if (text === undefined) continue;
      const parsed = parseFrontMatter(text);
      if (!parsed.ok) continue;
      try {
        const read = readReminderNote(parsed.data, path, { defaultZone: this.options.zone() });
        if (read.ok) notes.push(read.note);
      } catch (error) {
        if (!(error instanceof FrontMatterValueError)) throw error;
      }
    }
    return notes;
  }
}

function toReminder(note: ReminderNote, now: number): Reminder {
  const next = nextFire(
    note.schedule,
    {
      status: note.status,
      taskState: 'none',
      ...(note.snoozedUntil === undefined ? {} : { snoozedUntil: note.snoozedUntil }),
    },
    now,
  );
  return {
    id: note.id,
    title: note.title,
    due: formatInZone(note.due, note.timezone),
    timezone: note.timezone,
    repeat: note.repeat ?? null,
    path: note.path,
    status: note.status,
    source: 'note',
    snoozed_until:
      note.snoozedUntil === undefined ? null : formatInZone(note.snoozedUntil, note.timezone),
    next_fire: next === null ? null : formatInZone(next, note.timezone),
  };
}

/** When a reminder is "due" for listing: its next firing, else its first occurrence. */
function whenOf(reminder: Reminder): number {
  return Date.parse(reminder.next_fire ?? reminder.due ?? '');
}

/** `from`/`to` dates are whole days in the reminder's zone; date-times are instants. */
function inRange(reminder: Reminder, from: string | undefined, to: string | undefined): boolean {
  const when = whenOf(reminder);
  if (from !== undefined && when < boundary(from, reminder.timezone, 'start')) return false;
  if (to !== undefined && when > boundary(to, reminder.timezone, 'end')) return false;
  return true;
}

function boundary(text: string, zone: string, side: 'start' | 'end'): number {
  if (/^\d{4}-\d{2}-\d{2}$/.test(text)) {
    const day = parseLocalDateTime(`${text}T00:00`);
    if (!day.ok) return side === 'start' ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY;
    const start = wallToInstant(day.wall, zone);
    return side === 'start' ? start : wallToInstant(day.wall + MS_PER_DAY, zone) - 1;
  }
  if (/(?:Z|[+-]\d{2}:?\d{2})$/.test(text)) return Date.parse(text);
  const local = parseLocalDateTime(text.replace(' ', 'T').slice(0, 16));
  return local.ok ? wallToInstant(local.wall, zone) : Date.parse(text);
}
