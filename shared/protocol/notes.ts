import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { NonBlank, TagName, VaultPath } from './formats';
import { TITLE_MAX_CHARS } from './reminders';

/** One megabyte of Markdown: a note, not an upload (uploads go through `/ingest`). */
export const NOTE_BODY_MAX_CHARS = 1_000_000;

/** `POST /api/v1/notes`: writes a front-mattered note (docs/vault-format.md) into the vault. */
export const NoteCreate = Type.Object(
  {
    title: NonBlank({ maxLength: TITLE_MAX_CHARS }),
    body: Type.String({ maxLength: NOTE_BODY_MAX_CHARS }),
    tags: Type.Optional(Type.Array(TagName(), { maxItems: 50, uniqueItems: true })),
    /** Vault-relative folder; defaults to the notes folder from settings. */
    folder: Type.Optional(VaultPath()),
  },
  { additionalProperties: false },
);
export type NoteCreate = Static<typeof NoteCreate>;

export const NoteCreated = Type.Object({
  id: Type.String(),
  path: Type.String(),
  title: Type.String(),
  /** True when the same title was created within the dedup window and that note is returned. */
  deduplicated: Type.Boolean(),
});
export type NoteCreated = Static<typeof NoteCreated>;
