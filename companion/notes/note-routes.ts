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
import { createOnce } from '../idempotency/content-dedup';
import { answerOnce } from '../idempotency/idempotency-key';
import type { WriteMemory } from '../idempotency/write-memory';
import { createVaultFile, folderEntries, VaultWriteError } from '../vault/atomic-write';
import type { IndexAfterWrite } from '../search/index-after-write';
import { resolveVaultPath } from '../vault/paths';
import { vaultErrors } from '../reminders/reminder-routes';

const CREATE_ATTEMPTS = 3;

export interface NoteRouteDeps {
  readonly vault: string;
  /** Default folder for new notes (settings' notes folder). */
  readonly folder: string;
  readonly zone: string;
  readonly clock: Clock;
  /** Indexes the new note at once; absent, the watcher picks it up. */
  readonly indexAfterWrite?: IndexAfterWrite;
  /** Idempotency-Key replays and the dedup of identical notes (companion/idempotency). */
  readonly memory: WriteMemory;
}

/**
 * `POST /api/v1/notes` (docs/vault-format.md, companion/README.md): a front-mattered note, named by the title's slug with a
 * short id suffix on collision, created atomically and never over an existing file. The same
 * note (title without case and spacing, body, tags, folder) asked again within five minutes (a
 * retried request, a double tap), even across a restart, answers the note already written,
 * flagged `deduplicated` (200 instead of 201); a note that differs in anything is written.
 * `Idempotency-Key` replays the first answer for 24 h.
 */
export function registerNoteRoutes(app: FastifyInstance, deps: NoteRouteDeps): void {
  const random = (count: number) => new Uint8Array(randomBytes(count));

  app.post<{ Body: NoteCreate }>(
    '/api/v1/notes',
    { schema: { body: NoteCreate, response: { 200: NoteCreated, 201: NoteCreated } } },
    async (request, reply) =>
      answerOnce(deps.memory, request, reply, request.body, async () => {
        const title = request.body.title.replace(/\s+/g, ' ').trim();
        const folder = (request.body.folder ?? deps.folder).replace(/\/+$/, '');
        const identical = [
          folder.toLowerCase(),
          title.toLowerCase(),
          request.body.body,
          [...(request.body.tags ?? [])].sort(),
        ];
        const made = await createOnce<NoteCreated>(
          deps.memory,
          'note',
          identical,
          async (earlier) => {
            const still = await resolveVaultPath(deps.vault, earlier.path);
            return still.ok && still.exists ? earlier : undefined;
          },
          () => writeNote(title, folder, request.body),
        );
        return {
          status: made.deduplicated ? 200 : 201,
          body: { ...made.value, deduplicated: made.deduplicated },
        };
      }),
  );

  async function writeNote(title: string, folder: string, body: NoteCreate): Promise<NoteCreated> {
    const now = deps.clock.now();
    const id = newNoteId(random);
    let content: string;
    try {
      const created = formatInZone(now, deps.zone);
      content = buildNoteFile({
        id,
        title,
        tags: body.tags ?? [],
        created,
        source: 'api',
        body: body.body,
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
    return { id, path, title, deduplicated: false };
  }
}
