import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Clock } from '../../shared/ports';
import {
  buildNoteFile,
  caseInsensitiveExists,
  FrontMatterValueError,
  newNoteId,
  newShortId,
  uniqueNotePath,
} from '../../shared/markdown';
import { NoteCreate, NoteCreated } from '../../shared/protocol/notes';
import { formatInZone } from '../../shared/reminders';
import { ApiHttpError } from '../http/api-error';
import { createVaultFile, folderEntries, VaultWriteError } from '../vault/atomic-write';
import type { IndexAfterWrite } from '../vault/index-after-write';
import { resolveVaultPath } from '../vault/paths';
import { vaultErrors } from './reminders';

/** DESIGN §4: the same note title asked again within this window returns the first note. */
export const NOTE_DEDUP_MS = 5 * 60_000;
const CREATE_ATTEMPTS = 3;

export interface NoteRouteDeps {
  readonly vault: string;
  /** Default folder for new notes (settings' notes folder). */
  readonly folder: string;
  readonly zone: string;
  readonly clock: Clock;
  /** Indexes the new note at once; absent, the watcher picks it up. */
  readonly indexAfterWrite?: IndexAfterWrite;
}

/**
 * `POST /api/v1/notes` (DESIGN §2, §6): a front-mattered note, named by the title's slug with a
 * short id suffix on collision, created atomically and never over an existing file. A repeat
 * of the same title within five minutes (a retried request, a double tap) answers the note
 * already written, flagged `deduplicated` (200 instead of 201).
 */
export function registerNoteRoutes(app: FastifyInstance, deps: NoteRouteDeps): void {
  const recent = new Map<string, { at: number; created: NoteCreated }>();
  const random = (count: number) => new Uint8Array(randomBytes(count));

  app.post<{ Body: NoteCreate }>(
    '/api/v1/notes',
    { schema: { body: NoteCreate, response: { 200: NoteCreated, 201: NoteCreated } } },
    async (request, reply) => {
      const now = deps.clock.now();
      const title = request.body.title.replace(/\s+/g, ' ').trim();
      const folder = (request.body.folder ?? deps.folder).replace(/\/+$/, '');
      for (const [key, entry] of recent) if (entry.at < now - NOTE_DEDUP_MS) recent.delete(key);
      const key = `${folder.toLowerCase()}\u0000${title.toLowerCase()}`;
      const earlier = recent.get(key);
      if (earlier) {
        const still = await resolveVaultPath(deps.vault, earlier.created.path);
        if (still.ok && still.exists)
          return reply.code(200).send({ ...earlier.created, deduplicated: true });
      }

      const id = newNoteId(random);
      let content: string;
      try {
        const created = formatInZone(now, deps.zone);
        content = buildNoteFile({
          id,
          title,
          tags: request.body.tags ?? [],
          created,
          source: 'api',
          body: request.body.body,
        });
      } catch (error) {
        if (error instanceof FrontMatterValueError) {
          throw new ApiHttpError('UNPROCESSABLE', error.message, error.field);
        }
        throw error;
      }

      const path = await vaultErrors(async () => {
        for (let attempt = 1; ; attempt++) {
          const taken = caseInsensitiveExists(await folderEntries(deps.vault, folder));
          const candidate = uniqueNotePath(folder, title, taken, () => newShortId(random));
          try {
            return (await createVaultFile(deps.vault, candidate, content)).path;
          } catch (error) {
            const raced = error instanceof VaultWriteError && error.code === 'CONFLICT';
            if (!raced || attempt >= CREATE_ATTEMPTS) throw error;
          }
        }
      }).catch((error: unknown) => {
        if (error instanceof ApiHttpError && error.field === 'path') {
          throw new ApiHttpError(error.code, error.message, 'folder');
        }
        throw error;
      });
      await deps.indexAfterWrite?.(path);
      const created: NoteCreated = { id, path, title, deduplicated: false };
      recent.set(key, { at: now, created });
      return reply.code(201).send(created);
    },
  );
}
