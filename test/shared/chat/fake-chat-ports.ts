/**
 * In-memory implementations of the chat ports, behaving as the vault-backed ones must: notes and
 * reminders are stored, appended to, found by path/id/title, deleted; search and answers match
 * words in the stored notes. Each write is counted so tests can assert "nothing written twice".
 */
import {
  ChatPortError,
  type Answerer,
  type NoteWriter,
  type ReminderQuery,
  type ReminderReader,
  type ReminderWriter,
  type Searcher,
  type SearchHit,
} from '../../../shared/chat/ports';
import type { Clock } from '../../../shared/ports';
import type { NoteCitation } from '../../../shared/protocol/citation';
import type { Reminder } from '../../../shared/protocol/reminders';
import {
  formatInZone,
  parseLocalDateTime,
  wallToInstant,
} from '../../../shared/reminders/local-time';

export interface StoredNote {
  id: string;
  path: string;
  title: string;
  body: string;
}

export class FakeVault implements NoteWriter, ReminderReader, Searcher, Answerer {
  readonly notes = new Map<string, StoredNote>();
  readonly reminders = new Map<string, Reminder>();
  writes = 0;
  private nextId = 1;
  /** Makes the next call of this method throw. */
  failNext: { method: string; error: Error } | undefined;

  constructor(private readonly clock: Clock) {}

  addNote(title: string, body: string, path = `Notes/${slug(title)}.md`): StoredNote {
    const note = { id: `n-${this.nextId++}`, path, title, body };
    this.notes.set(path, note);
    return note;
  }

  addReminder(title: string, dueLocal: string, zone = 'Europe/Berlin'): Reminder {
    const reminder = this.makeReminder(title, dueLocal, zone, undefined);
    this.reminders.set(reminder.id, reminder);
    return reminder;
  }

  // NoteWriter

  async create(note: { title: string; body: string; tags?: string[]; folder?: string }) {
    this.maybeFail('create');
    this.writes++;
    let path = `${note.folder ?? 'Notes'}/${slug(note.title)}.md`;
    if (this.notes.has(path)) path = path.replace(/\.md$/, `-${this.nextId}.md`);
    const stored = { id: `n-${this.nextId++}`, path, title: note.title, body: note.body };
    this.notes.set(path, stored);
    return { id: stored.id, path, title: stored.title };
  }

  async append(request: { note: string; text: string; heading?: string }) {
    this.maybeFail('append');
    const wanted = request.note.toLowerCase();
    const matches = [...this.notes.values()].filter(
      (note) =>
        note.path.toLowerCase() === wanted ||
        note.id === request.note ||
        note.title.toLowerCase() === wanted,
    );
    if (matches.length === 0) {
      throw new ChatPortError('NOT_FOUND', `no note named "${request.note}"`, 'note');
    }
    if (matches.length > 1) {
      throw new ChatPortError('CONFLICT', `several notes are named "${request.note}"`, 'note');
    }
    const note = matches[0]!;
    this.writes++;
    note.body = `${note.body.replace(/\n*$/, '')}\n${request.text}\n`;
    return { path: note.path, title: note.title };
  }

  async deleteCreated(note: { id: string; path: string }) {
    this.maybeFail('deleteCreated');
    const stored = this.notes.get(note.path);
    if (stored === undefined || stored.id !== note.id) {
      throw new ChatPortError('NOT_FOUND', `${note.path} is gone`, 'path');
    }
    this.notes.delete(note.path);
  }

  async removeAppended(append: { path: string; text: string }) {
    this.maybeFail('removeAppended');
    const note = this.notes.get(append.path);
    const index = note?.body.lastIndexOf(`${append.text}\n`) ?? -1;
    if (note === undefined || index < 0) {
      throw new ChatPortError('CONFLICT', `${append.path} no longer ends with that text`, 'text');
    }
    note.body = note.body.slice(0, index) + note.body.slice(index + append.text.length + 1);
  }

  // ReminderReader

  async list(query: ReminderQuery): Promise<Reminder[]> {
    this.maybeFail('list');
    return [...this.reminders.values()]
      .filter((reminder) => query.status === undefined || reminder.status === query.status)
      .filter((reminder) => query.from === undefined || whenOf(reminder).slice(0, 10) >= query.from)
      .filter((reminder) => query.to === undefined || whenOf(reminder).slice(0, 10) <= query.to)
      .sort((a, b) => Date.parse(whenOf(a)) - Date.parse(whenOf(b)))
      .slice(0, query.limit ?? 50);
  }

  async get(id: string): Promise<Reminder | undefined> {
    return this.reminders.get(id);
  }

  // ReminderWriter (create is shared with NoteWriter's name, so reminders use createReminder)

  async createReminder(input: { title: string; due: string; timezone: string; repeat?: string }) {
    this.maybeFail('createReminder');
    this.writes++;
    const reminder = this.makeReminder(input.title, input.due, input.timezone, input.repeat);
    this.reminders.set(reminder.id, reminder);
    return reminder;
  }

  async snooze(id: string, minutes: number): Promise<Reminder> {
    this.maybeFail('snooze');
    const reminder = this.mustGet(id);
    const snoozed = {
      ...reminder,
      snoozed_until: formatInZone(this.clock.now() + minutes * 60_000, reminder.timezone),
    };
    this.reminders.set(id, snoozed);
    return snoozed;
  }

  async complete(id: string): Promise<Reminder> {
    this.maybeFail('complete');
    const done = { ...this.mustGet(id), status: 'done' as const };
    this.reminders.set(id, done);
    return done;
  }

  async delete(id: string): Promise<void> {
    this.maybeFail('delete');
    this.mustGet(id);
    this.reminders.delete(id);
  }

  async restore(previous: Reminder): Promise<void> {
    this.maybeFail('restore');
    this.mustGet(previous.id);
    this.reminders.set(previous.id, previous);
  }

  // Searcher and Answerer: every query word (3+ letters) must occur in the note.

  async search(request: { query: string; limit?: number }): Promise<SearchHit[]> {
    this.maybeFail('search');
    return this.matching(request.query)
      .slice(0, request.limit ?? 10)
      .map((citation) => ({ citation, score: citation.score }));
  }

  async answer(request: { question: string; limit?: number }) {
    this.maybeFail('answer');
    const citations = this.matching(request.question).slice(0, request.limit ?? 3);
    const answer = citations.map((c, i) => `> ${c.excerpt} [${i + 1}]`).join('\n');
    return { answer, citations };
  }

  private matching(text: string): NoteCitation[] {
    const words = text
      .toLowerCase()
      .split(/[^a-z0-9]+/)
      .filter((word) => word.length >= 3 && !STOP_WORDS.has(word));
    return [...this.notes.values()]
      .filter((note) => words.some((word) => note.body.toLowerCase().includes(word)))
      .map((note) => ({
        type: 'note' as const,
        path: note.path,
        title: note.title,
        id: note.id,
        excerpt: note.body.split('\n')[0] ?? '',
        lines: [1, note.body.split('\n').length] as [number, number],
        score: 0.5,
      }));
  }

  private makeReminder(title: string, due: string, zone: string, repeat: string | undefined) {
    const local = parseLocalDateTime(due.slice(0, 16));
    if (!local.ok) throw new ChatPortError('VALIDATION_ERROR', local.message, 'due');
    const id = `r-${this.nextId++}`;
    const reminder: Reminder = {
      id,
      title,
      due: formatInZone(wallToInstant(local.wall, zone), zone),
      timezone: zone,
      repeat: repeat ?? null,
      path: `Reminders/${slug(title)}-${id}.md`,
      status: 'active',
    };
    return reminder;
  }

  private mustGet(id: string): Reminder {
    const reminder = this.reminders.get(id);
    if (reminder === undefined) throw new ChatPortError('NOT_FOUND', `no reminder ${id}`, 'id');
    return reminder;
  }

  private maybeFail(method: string): void {
    if (this.failNext?.method !== method) return;
    const { error } = this.failNext;
    this.failNext = undefined;
    throw error;
  }
}

/** The vault as a ReminderWriter (its `create` is the note one). */
export function reminderWriterOf(vault: FakeVault): ReminderWriter {
  return {
    create: (input) => vault.createReminder(input),
    snooze: (id, minutes) => vault.snooze(id, minutes),
    complete: (id) => vault.complete(id),
    delete: (id) => vault.delete(id),
    restore: (previous) => vault.restore(previous),
  };
}

const STOP_WORDS = new Set(['what', 'the', 'did', 'write', 'about', 'and', 'for', 'with', 'how']);

function slug(title: string): string {
  return title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}

/** The date a fake reminder lists under: its next ring, else its due. */
function whenOf(reminder: Reminder): string {
  return reminder.next_fire ?? reminder.due ?? '';
}
