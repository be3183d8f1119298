import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';

/*
 * `GET /api/v1/health/knowledge` (docs/search.md, "Knowledge health"): what the index holds and
 * what in the vault needs care. Every item names its note by vault path, which clients open.
 */

export const HealthItem = Type.Object({
  path: Type.String(),
  title: Type.String(),
  /** Why it is listed, in words. */
  reason: Type.String(),
});
export type HealthItem = Static<typeof HealthItem>;

export const KnowledgeHealth = Type.Object({
  coverage: Type.Object({
    /** Files indexed whole. */
    indexed: Type.Integer({ minimum: 0 }),
    /** Files not indexed, with why. */
    failed: Type.Array(HealthItem),
    /** Files indexed only in part (broken front matter, a PDF page without text…). */
    partial: Type.Array(HealthItem),
  }),
  hygiene: Type.Object({
    /** Notes without tags, listed only when most notes of the vault have some. */
    untagged: Type.Array(HealthItem),
    /** Notes sharing a title with another. */
    duplicate_titles: Type.Array(HealthItem),
    /** Notes with no text besides their front matter. */
    empty: Type.Array(HealthItem),
    /** Wiki links (`[[…]]`) to no note or file of the vault, listed under the linking note. */
    broken_links: Type.Array(HealthItem),
    /** PDFs no note links to or embeds. */
    orphaned_attachments: Type.Array(HealthItem),
  }),
  staleness: Type.Object({
    /** Notes not updated in a year (front-matter `updated`, else `created`, else file time). */
    not_updated_in_a_year: Type.Array(HealthItem),
    /**
     * Notes cited in answers at least a few times (OFTEN_CITED) and not updated in a year: the
     * answers lean on them, so they are the first to check. Absent from older companions.
     */
    often_cited: Type.Optional(Type.Array(HealthItem)),
    /** Reminders not done whose time has passed, under their note. Absent from older companions. */
    overdue_reminders: Type.Optional(Type.Array(HealthItem)),
  }),
});
export type KnowledgeHealth = Static<typeof KnowledgeHealth>;
