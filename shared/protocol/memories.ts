import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { NonBlank } from './formats';
import { MEMORY_CATEGORIES } from '../memory/memory-category';
import { Reminder, ReminderCreate } from './reminders';

/* docs/memory-digest-calendar.md memories: `GET|POST /api/v1/memories`, `DELETE /api/v1/memories/:id`. */

export const MEMORY_TEXT_MAX = 1000;

/** One of the 11 categories (docs/memory-digest-calendar.md), as its lowercase slug. */
export const MemoryCategoryName = Type.Union(MEMORY_CATEGORIES.map((name) => Type.Literal(name)));

export const MemoryListQuery = Type.Object(
  { category: Type.Optional(MemoryCategoryName) },
  { additionalProperties: false },
);
export type MemoryListQuery = Static<typeof MemoryListQuery>;

export const MemoryCategoryUpdate = Type.Object(
  { category: MemoryCategoryName },
  { additionalProperties: false },
);
export type MemoryCategoryUpdate = Static<typeof MemoryCategoryUpdate>;

export const MemoryCategoryCounts = Type.Object({
  categories: Type.Array(
    Type.Object({ category: MemoryCategoryName, label: Type.String(), count: Type.Integer() }),
  ),
});
export type MemoryCategoryCounts = Static<typeof MemoryCategoryCounts>;

export const MemoryItem = Type.Object(
  {
    /** Block id without the caret (`m-7k2p`). */
    id: Type.String(),
    text: Type.String(),
    /** `YYYY-MM-DD`, or null for a line the user wrote without `(added …)`. */
    added: Type.Union([Type.String(), Type.Null()]),
    path: Type.String(),
    /** 1-based line in the file. */
    line: Type.Integer({ minimum: 1 }),
    category: MemoryCategoryName,
    /** `tag`: its `#memory/…` tag in the file; `rules`: untagged, placed by the rules when read. */
    category_source: Type.Union([Type.Literal('tag'), Type.Literal('rules')]),
  },
  { additionalProperties: false },
);
export type MemoryItem = Static<typeof MemoryItem>;

export const MemoryProblemItem = Type.Object({
  line: Type.Integer({ minimum: 1 }),
  kind: Type.String(),
  message: Type.String(),
});

export const MemoryListResponse = Type.Object({
  memories: Type.Array(MemoryItem),
  /** Lines of the file that are not used as memories, and why (hand edits). */
  problems: Type.Array(MemoryProblemItem),
});
export type MemoryListResponse = Static<typeof MemoryListResponse>;

export const MemoryCreate = Type.Object(
  { text: NonBlank({ maxLength: MEMORY_TEXT_MAX }) },
  { additionalProperties: false },
);
export type MemoryCreate = Static<typeof MemoryCreate>;

export const MemoryCreated = Type.Intersect([
  MemoryItem,
  Type.Object({
    /** The same fact was already there; nothing was written. */
    deduplicated: Type.Boolean(),
    /** Ids of older facts this one replaced (struck through in the file). */
    replaced: Type.Array(Type.String()),
    /**
     * The fact's link: `fetching` (a clipped note follows in `Cairn/Links/`) or `not_fetched`
     * (offline mode or a URL that is not fetched; `message` says why and how to allow it).
     */
    link: Type.Optional(
      Type.Object({
        url: Type.String(),
        status: Type.Union([Type.Literal('fetching'), Type.Literal('not_fetched')]),
        message: Type.String(),
      }),
    ),
  }),
]);
export type MemoryCreated = Static<typeof MemoryCreated>;

export const MemoryIdParams = Type.Object({
  id: Type.String({ pattern: '^\\^?[A-Za-z0-9-]{1,64}$' }),
});
export type MemoryIdParams = Static<typeof MemoryIdParams>;

export const MemoryImportResponse = Type.Object({
  /** Memories written (duplicates not counted). */
  imported: Type.Integer({ minimum: 0 }),
  /** Lines skipped because the fact was already known (or given twice in the file). */
  duplicates: Type.Integer({ minimum: 0 }),
  memories: Type.Array(MemoryItem),
  /** Ids of older facts the imported ones replaced (struck through). */
  replaced: Type.Array(Type.String()),
});
export type MemoryImportResponse = Static<typeof MemoryImportResponse>;

/** `POST /api/v1/memories/:id/reminder`: a reminder made from a memory (title defaults to its text). */
export const MemoryReminderCreate = Type.Object(
  {
    title: Type.Optional(ReminderCreate.properties.title),
    due: ReminderCreate.properties.due,
    timezone: ReminderCreate.properties.timezone,
    repeat: ReminderCreate.properties.repeat,
  },
  { additionalProperties: false },
);
export type MemoryReminderCreate = Static<typeof MemoryReminderCreate>;

export const MemoryReminderCreated = Type.Object({
  memory: MemoryItem,
  reminder: Reminder,
  deduplicated: Type.Boolean(),
});
export type MemoryReminderCreated = Static<typeof MemoryReminderCreated>;

/** `POST /api/v1/memories/:id/link`: the memory's link fetched (again) and clipped. */
export const MemoryLinkClipped = Type.Object({
  memory: MemoryItem,
  /** The clipped note, e.g. `Cairn/Links/some-tool.md`. */
  path: Type.String(),
  title: Type.String(),
  /** The page's address after redirects. */
  source: Type.String(),
});
export type MemoryLinkClipped = Static<typeof MemoryLinkClipped>;

/** A memory's saved link and what became of it (`GET /api/v1/memories/links`). */
export const MemoryLinkStatus = Type.Object({
  /** The memory's id (`m-7k2p`). */
  memory: Type.String(),
  url: Type.String(),
  /**
   * `clipped`: its note is in `Cairn/Links/`; `fetching`: under way; `failed`: the last fetch
   * failed (`message` says why; retry with `POST /api/v1/memories/:id/link`); `not_fetched`:
   * offline mode or a URL that is never fetched, or not tried yet (`message` says which).
   */
  status: Type.Union([
    Type.Literal('clipped'),
    Type.Literal('fetching'),
    Type.Literal('failed'),
    Type.Literal('not_fetched'),
  ]),
  message: Type.String(),
  /** Whether `POST /api/v1/memories/:id/link` may succeed now (false while offline mode forbids it). */
  retry: Type.Boolean(),
  note: Type.Optional(
    Type.Object({ path: Type.String(), title: Type.String(), fetched: Type.String() }),
  ),
});
export type MemoryLinkStatus = Static<typeof MemoryLinkStatus>;

export const MemoryLinksResponse = Type.Object({ links: Type.Array(MemoryLinkStatus) });
export type MemoryLinksResponse = Static<typeof MemoryLinksResponse>;
