/**
 * The chat's NoteWriter over the vault: notes as docs/vault-format.md lays them out (shared/markdown's
 * `buildNoteFile`, `source: chat`, or `command` for the palette's New note), appends that leave every existing byte alone
 * (`appendToNoteBody`), and undo that refuses to destroy what the user changed since.
 */
import { ChatPortError, type NoteSource, type NoteWriter } from '../../shared/chat/ports';
import {
  appendToNoteBody,
  buildNoteFile,
  FrontMatterValueError,
  newNoteId,
  newShortId,
  parseFrontMatter,
  uniqueNotePath,
  type RandomBytes,
} from '../../shared/markdown';
import type { Clock } from '../../shared/ports';
import { formatInZone } from '../../shared/reminders';
import type { ChatVaultFiles } from '../chat/chat-vault-files';

export interface VaultNoteWriterOptions {
  files: ChatVaultFiles;
  clock: Clock;
  /** The user's zone, for `created`/`updated` offsets. */
  zone: () => string;
  /** Folder for new notes when the call names none (settings). */
  notesFolder: () => string;
  randomBytes: RandomBytes;
}

/** Undo memory: what each write left, so undo can tell whether the user changed it since. */
interface Written {
  after: string;
  before?: string;
}

/** Bound on remembered writes; older ones fall back to the id check. */
const REMEMBERED_WRITES = 200;

export class VaultNoteWriter implements NoteWriter {
  private readonly written = new Map<string, Written>();

  constructor(private readonly options: VaultNoteWriterOptions) {}

  async create(note: {
    title: string;
    body: string;
    tags?: string[];
    folder?: string;
    source?: NoteSource;
  }) {
    const { files, clock, zone, randomBytes } = this.options;
    const id = newNoteId(randomBytes);
    const folder = note.folder ?? this.options.notesFolder();
    let text: string;
    try {
      text = buildNoteFile({
        id,
        title: note.title,
        tags: note.tags ?? [],
        created: formatInZone(clock.now(), zone()),
        source: note.source ?? 'chat',
        body: note.body,
      });
    } catch (error) {
      if (error instanceof FrontMatterValueError) {
        throw new ChatPortError('VALIDATION_ERROR', error.message, error.field);
      }
      throw error;
    }
    const path = uniqueNotePath(
      folder,
      note.title,
      (p) => files.exists(p),
      () => newShortId(randomBytes),
    );
    await files.create(path, text);
    this.remember(`create:${path}`, { after: text });
    return { id, path, title: note.title.trim() };
  }

  async append(request: { note: string; text: string; heading?: string }) {
    const { files } = this.options;
    const matches = files.findNotes(request.note.trim());
    if (matches.length === 0) {
      throw new ChatPortError('NOT_FOUND', `no note is called "${request.note}"`, 'note');
    }
    if (matches.length > 1) {
      const paths = matches
        .slice(0, 5)
        .map((m) => m.path)
        .join(', ');
      throw new ChatPortError(
        'CONFLICT',
        `several notes are called "${request.note}": ${paths}`,
        'note',
      );
    }
    const target = matches[0]!;
    let before: string | undefined;
    let after: string | undefined;
    await files.process(target.path, (current) => {
      before = current;
      after =
        request.heading === undefined
          ? appendToNoteBody(current, request.text)
          : appendToSection(current, request.heading, request.text, target.path);
      return after;
    });
    if (before !== undefined && after !== undefined) {
      this.remember(`append:${target.path}\u0000${request.text}`, { before, after });
    }
    return { path: target.path, title: target.title };
  }

  async deleteCreated(note: { id: string; path: string }) {
    const { files } = this.options;
    const current = await files.read(note.path);
    if (current === undefined) {
      throw new ChatPortError('NOT_FOUND', `${note.path} is no longer there`, 'path');
    }
    const written = this.written.get(`create:${note.path}`);
    if (written !== undefined && written.after !== current) {
      throw new ChatPortError(
        'CONFLICT',
        `${note.path} was edited after Cairn wrote it; delete it yourself if you want it gone`,
        'path',
      );
    }
    const parsed = parseFrontMatter(current);
    if (!parsed.ok || parsed.data.id !== note.id) {
      throw new ChatPortError('CONFLICT', `${note.path} is not the note Cairn created`, 'path');
    }
    await files.trash(note.path);
    this.written.delete(`create:${note.path}`);
  }

  async removeAppended(append: { path: string; text: string }) {
    const key = `append:${append.path}\u0000${append.text}`;
    const written = this.written.get(key);
    let conflict: string | undefined;
    await this.options.files.process(append.path, (current) => {
      // Exactly as left: restore the previous bytes.
      if (written?.before !== undefined && current === written.after) return written.before;
      const block = append.text.replace(/\r\n?/g, '\n').trim();
      const normalised = current.replace(/\r\n?/g, '\n');
      const end = normalised.trimEnd();
      if (block === '' || !end.endsWith(block)) {
        conflict = `${append.path} no longer ends with the text Cairn added`;
        return current;
      }
      const eol = current.includes('\r\n') ? '\r\n' : '\n';
      const kept = end.slice(0, end.length - block.length).trimEnd();
      return kept === '' ? '' : `${kept}\n`.replace(/\n/g, eol);
    });
    if (conflict !== undefined) throw new ChatPortError('CONFLICT', conflict, 'text');
    this.written.delete(key);
  }

  private remember(key: string, value: Written): void {
    this.written.delete(key);
    this.written.set(key, value);
    while (this.written.size > REMEMBERED_WRITES) {
      const oldest = this.written.keys().next().value;
      if (oldest === undefined) break;
      this.written.delete(oldest);
    }
  }
}

/**
 * Appends at the end of the section under `heading` (any level, compared without case): just
 * before the next heading of the same or a higher level, or at the end of the note.
 */
function appendToSection(text: string, heading: string, addition: string, path: string): string {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const lines = text.split(/\r?\n/);
  const wanted = heading
    .trim()
    .replace(/^#+\s*/, '')
    .toLowerCase();
  let start = -1;
  let level = 0;
  let inFence = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (/^\s*(```|~~~)/.test(line)) inFence = !inFence;
    if (inFence) continue;
    const match = /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (!match) continue;
    if (start < 0 && match[2]!.toLowerCase() === wanted) {
      start = i;
      level = match[1]!.length;
    } else if (start >= 0 && match[1]!.length <= level) {
      return insertBefore(lines, i, addition, eol);
    }
  }
  if (start < 0) {
    throw new ChatPortError('NOT_FOUND', `${path} has no heading "${heading}"`, 'heading');
  }
  return appendToNoteBody(text, addition);
}

function insertBefore(lines: string[], index: number, addition: string, eol: string): string {
  let end = index;
  while (end > 0 && lines[end - 1]!.trim() === '') end--;
  const block = addition.replace(/\r\n?/g, '\n').trim().split('\n');
  const out = [...lines.slice(0, end), ...block, '', ...lines.slice(index)];
  return out.join(eol);
}
