import { randomBytes } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { Clock } from '../../shared/ports';
import {
  buildNoteFile,
  caseInsensitiveExists,
  isValidTag,
  newNoteId,
  newShortId,
  slugify,
  uniqueNotePath,
} from '../../shared/markdown';
import { ImportParseError, parseBookmarks } from '../../shared/import/bookmarks';
import { parseKindleClippings } from '../../shared/import/kindle-clippings';
import type { KindleBook } from '../../shared/import/kindle-clippings';
import type { Bookmark } from '../../shared/import/bookmarks';
import { VaultPath } from '../../shared/protocol/formats';
import { formatInZone } from '../../shared/reminders';
import { ApiHttpError } from '../http/api-error';
import { vaultErrors } from '../http/vault-errors';
import type { IndexAfterWrite } from '../search';
import { createVaultFile, folderEntries, removeCreatedFile } from '../vault/atomic-write';
import { severalVaultWrites } from '../vault/dry-run';

/** `POST /api/v1/import` (docs/clients.md "Import"): a browser bookmark export or Kindle clippings. */
export const ImportRequest = Type.Object(
  {
    kind: Type.Union([Type.Literal('bookmarks'), Type.Literal('kindle')]),
    /** The file's name, for errors (`bookmarks.html:12: …`). */
    file: Type.String({ minLength: 1, maxLength: 255 }),
    text: Type.String({ maxLength: 20_000_000 }),
    /** Where the notes go; default `Imports/Bookmarks` or `Imports/Kindle`. */
    folder: Type.Optional(VaultPath()),
  },
  { additionalProperties: false },
);
export type ImportRequest = Static<typeof ImportRequest>;

export const ImportResponse = Type.Object({
  kind: Type.String(),
  notes: Type.Array(Type.Object({ path: Type.String(), title: Type.String() })),
});

const DEFAULT_FOLDERS = { bookmarks: 'Imports/Bookmarks', kindle: 'Imports/Kindle' } as const;

export interface ImportRouteDeps {
  readonly vault: string;
  readonly zone: string;
  readonly clock: Clock;
  readonly indexAfterWrite?: IndexAfterWrite;
}

/** One note to write: its title and whole file text. */
interface PlannedNote {
  readonly title: string;
  readonly content: string;
}

/**
 * Imports a whole file or nothing: the file is parsed first (an error names `file:line`, 400),
 * every note is built, then written one by one; if one write fails, the notes written before it
 * are taken back (only while unchanged) and the error is answered.
 */
export function registerImportRoutes(app: FastifyInstance, deps: ImportRouteDeps): void {
  const random = (count: number) => new Uint8Array(randomBytes(count));
  app.post<{ Body: ImportRequest }>(
    '/api/v1/import',
    {
      bodyLimit: 25 * 1024 * 1024,
      schema: { body: ImportRequest, response: { 201: ImportResponse } },
    },
    async (request, reply) => {
      const { kind, file, text } = request.body;
      const folder = (request.body.folder ?? DEFAULT_FOLDERS[kind]).replace(/\/+$/, '');
      const now = deps.clock.now();
      let planned: PlannedNote[];
      try {
        planned =
          kind === 'bookmarks'
            ? parseBookmarks(file, text).map((b) => bookmarkNote(b, now, deps.zone, random))
            : parseKindleClippings(file, text).map((b) => bookNote(b, now, deps.zone, random));
      } catch (error) {
        if (error instanceof ImportParseError) {
          throw new ApiHttpError('VALIDATION_ERROR', error.message, 'text');
        }
        throw error;
      }
      if (planned.length === 0) {
        throw new ApiHttpError('VALIDATION_ERROR', `${file}: nothing to import`, 'text');
      }
      const written: Array<{ path: string; title: string; content: string }> = [];
      try {
        // One block of vault writes: a dry run lists every note (vault/dry-run.ts).
        await vaultErrors(() =>
          severalVaultWrites(async () => {
            const existing = await folderEntries(deps.vault, folder).catch(() => []);
            const taken = new Set(existing.map((name) => name.toLowerCase()));
            for (const note of planned) {
              const path = uniqueNotePath(folder, note.title, caseInsensitiveExists(taken), () =>
                newShortId(random),
              );
              taken.add(path.toLowerCase());
              const created = await createVaultFile(deps.vault, path, note.content);
              written.push({ path: created.path, title: note.title, content: note.content });
            }
          }),
        );
      } catch (error) {
        for (const note of written.reverse()) {
          await removeCreatedFile(deps.vault, note.path, note.content).catch(() => false);
        }
        throw error;
      }
      for (const note of written) await deps.indexAfterWrite?.(note.path).catch(() => undefined);
      return reply
        .code(201)
        .send({ kind, notes: written.map(({ path, title }) => ({ path, title })) });
    },
  );
}

/** A folder or browser tag as a tag: `Bookmarks bar/Recipes` → `bookmarks-bar`, `recipes`. */
function asTag(name: string): string | undefined {
  const tag = slugify(name);
  return isValidTag(tag) ? tag : undefined;
}

function bookmarkNote(
  bookmark: Bookmark,
  now: number,
  zone: string,
  random: (count: number) => Uint8Array,
): PlannedNote {
  const title = bookmark.title.replace(/\s+/g, ' ').slice(0, 200);
  const tags = ['bookmark', ...bookmark.folders.map(asTag), ...bookmark.tags.map(asTag)].filter(
    (tag, index, all): tag is string => tag !== undefined && all.indexOf(tag) === index,
  );
  const body = [`[${title.replace(/[[\]]/g, '')}](${bookmark.url.replace(/ /g, '%20')})`];
  if (bookmark.description) body.push('', bookmark.description);
  if (bookmark.folders.length > 0) body.push('', `Folder: ${bookmark.folders.join(' / ')}`);
  return {
    title,
    content: buildNoteFile({
      id: newNoteId(random),
      title,
      tags,
      created: formatInZone(bookmark.added ?? now, zone),
      source: 'bookmarks',
      extra: [['url', bookmark.url]],
      body: `${body.join('\n')}\n`,
    }),
  };
}

function bookNote(
  book: KindleBook,
  now: number,
  zone: string,
  random: (count: number) => Uint8Array,
): PlannedNote {
  const title = book.title.replace(/\s+/g, ' ').slice(0, 200);
  const parts: string[] = [`# ${title}`, ''];
  if (book.author) parts.push(`By ${book.author}`, '');
  for (const clip of book.clippings) {
    const where = [
      clip.page === undefined ? undefined : `page ${clip.page}`,
      clip.location === undefined ? undefined : `location ${clip.location}`,
      clip.added === undefined ? undefined : `added ${clip.added}`,
    ]
      .filter((part) => part !== undefined)
      .join(' · ');
    if (clip.kind === 'highlight') {
      parts.push(...clip.text.split('\n').map((line) => `> ${line}`), '', `— ${where}`, '');
    } else if (clip.kind === 'note') {
      parts.push(`**Note** (${where}): ${clip.text}`, '');
    } else {
      parts.push(`- Bookmark (${where})`, '');
    }
  }
  return {
    title,
    content: buildNoteFile({
      id: newNoteId(random),
      title,
      tags: ['kindle'],
      created: formatInZone(now, zone),
      source: 'kindle',
      ...(book.author ? { extra: [['author', book.author]] as Array<[string, unknown]> } : {}),
      body: `${parts.join('\n').trimEnd()}\n`,
    }),
  };
}
