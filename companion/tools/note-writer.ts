import { randomBytes as nodeRandomBytes } from 'node:crypto';
import { readFile, unlink } from 'node:fs/promises';
import { ChatPortError } from '../../shared/chat/ports';
import type { AppendedText, CreatedNote, NoteWriter } from '../../shared/chat/ports';
import {
  appendToNoteBody,
  buildNoteFile,
  caseInsensitiveExists,
  FrontMatterValueError,
  newNoteId,
  newShortId,
  parseFrontMatter,
  uniqueNotePath,
} from '../../shared/markdown';
import type { RandomBytes } from '../../shared/markdown';
import type { Clock } from '../../shared/ports';
import { formatInZone } from '../../shared/reminders';
import {
  createVaultFile,
  editVaultFile,
  folderEntries,
  VaultWriteError,
} from '../vault/atomic-write';
import type { IndexAfterWrite } from '../search';
import { resolveVaultPath } from '../vault/paths';

export interface VaultNoteWriterDeps {
  readonly vault: string;
  /** Settings' notes folder: where chat notes go unless the tool names one. */
  readonly folder: string;
  readonly zone: () => string;
  readonly clock: Clock;
  /** Indexes a written note at once, so the next question finds it. */
  readonly indexAfterWrite?: IndexAfterWrite;
  readonly randomBytes?: RandomBytes;
}

/** Attempts at a free file name when another writer takes the chosen one meanwhile. */
const CREATE_ATTEMPTS = 3;

/**
 * Chat's note tools over the vault, with the same atomic writes as `POST /api/v1/notes`
 * (companion/vault/atomic-write.ts): a new note is created exclusively (never over a file), an
 * append re-reads and re-applies once after a concurrent change, else CONFLICT.
 *
 * Limits (the companion has no title lookup outside the index yet): `append` finds the note by
 * its vault path (with or without `.md`) only, and appends at the end of the note even when a
 * heading is named.
 */
export class VaultNoteWriter implements NoteWriter {
  private readonly randomBytes: RandomBytes;

  constructor(private readonly deps: VaultNoteWriterDeps) {
    this.randomBytes = deps.randomBytes ?? ((count) => new Uint8Array(nodeRandomBytes(count)));
  }

  async create(note: {
    title: string;
    body: string;
    tags?: string[];
    folder?: string;
  }): Promise<CreatedNote> {
    const title = note.title.replace(/\s+/g, ' ').trim();
    const folder = (note.folder ?? this.deps.folder).replace(/^\/+|\/+$/g, '');
    const id = newNoteId(this.randomBytes);
    let content: string;
    try {
      content = buildNoteFile({
        id,
        title,
        tags: note.tags ?? [],
        created: formatInZone(this.deps.clock.now(), this.deps.zone()),
        source: 'chat',
        body: note.body,
      });
    } catch (error) {
      if (error instanceof FrontMatterValueError) {
        throw new ChatPortError('VALIDATION_ERROR', error.message, error.field);
      }
      throw error;
    }
    const path = await (async () => {
      for (let attempt = 1; ; attempt++) {
        const taken = caseInsensitiveExists(await folderEntries(this.deps.vault, folder));
        const candidate = uniqueNotePath(folder, title, taken, () => newShortId(this.randomBytes));
        try {
          return (await createVaultFile(this.deps.vault, candidate, content)).path;
        } catch (error) {
          const raced = error instanceof VaultWriteError && error.code === 'CONFLICT';
          if (!raced || attempt >= CREATE_ATTEMPTS) throw error;
        }
      }
    })();
    await this.deps.indexAfterWrite?.(path);
    return { id, path, title };
  }

  async append(request: { note: string; text: string; heading?: string }): Promise<AppendedText> {
    const path = await this.findNote(request.note);
    const edited = await editVaultFile(this.deps.vault, path, (current) =>
      appendToNoteBody(current, request.text),
    );
    await this.deps.indexAfterWrite?.(edited.path);
    return { path: edited.path, title: titleOf(edited.after, edited.path) };
  }

  async deleteCreated(note: { id: string; path: string }): Promise<void> {
    const resolved = await resolveVaultPath(this.deps.vault, note.path, 'write');
    if (!resolved.ok) {
      const code = resolved.forbidden === true ? 'FORBIDDEN' : 'VALIDATION_ERROR';
      throw new ChatPortError(code, resolved.reason, 'path');
    }
    if (!resolved.exists) throw new ChatPortError('NOT_FOUND', `${note.path} no longer exists`);
    const parsed = parseFrontMatter(await readFile(resolved.absolute, 'utf8'));
    if (!parsed.ok || parsed.data.id !== note.id) {
      throw new ChatPortError(
        'CONFLICT',
        `${resolved.relative} is no longer the note chat wrote (its id changed); left as it is`,
      );
    }
    await unlink(resolved.absolute);
    await this.deps.indexAfterWrite?.(resolved.relative);
  }

  async removeAppended(append: { path: string; text: string }): Promise<void> {
    const block = append.text.replace(/\r\n?/g, '\n').trim();
    await editVaultFile(this.deps.vault, append.path, (current) => {
      const normalised = current.replace(/\r\n?/g, '\n');
      const at = normalised.lastIndexOf(block);
      if (block === '' || at < 0 || normalised.slice(at + block.length).trim() !== '') {
        throw new VaultWriteError(
          'CONFLICT',
          `the appended text is no longer at the end of ${append.path}; left as it is`,
        );
      }
      return `${normalised.slice(0, at).trimEnd()}\n`;
    });
    await this.deps.indexAfterWrite?.(append.path);
  }

  /** The vault path `reference` names (`Projects/Shopping` or `Projects/Shopping.md`). */
  private async findNote(reference: string): Promise<string> {
    const trimmed = reference.trim();
    const candidates = /\.md$/i.test(trimmed) ? [trimmed] : [`${trimmed}.md`, trimmed];
    for (const candidate of candidates) {
      const resolved = await resolveVaultPath(this.deps.vault, candidate, 'read');
      if (resolved.ok && resolved.exists) return resolved.relative;
    }
    throw new ChatPortError(
      'NOT_FOUND',
      `no note at "${trimmed}" in the vault; on the companion, name the note by its path (e.g. Projects/Shopping.md)`,
      'note',
    );
  }
}

function titleOf(text: string, path: string): string {
  const parsed = parseFrontMatter(text);
  if (parsed.ok && typeof parsed.data.title === 'string' && parsed.data.title.trim() !== '') {
    return parsed.data.title;
  }
  return (path.split('/').pop() ?? path).replace(/\.md$/i, '');
}
