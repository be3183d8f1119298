import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { VaultPath } from './formats';

/*
 * The one citation shape (docs/search.md) used by search results, answers, chat and the phone page.
 * A note citation points at a line range under a heading; a PDF citation at a page.
 */

const citationCommon = {
  path: VaultPath(),
  title: Type.String(),
  /** The note's front-matter `id`, when it has one: identity survives renames, paths do not. */
  id: Type.Optional(Type.String({ minLength: 1 })),
  /** The passage quoted as evidence, at most a few hundred characters. */
  excerpt: Type.String(),
  /** Relevance in [0, 1]; comparable within one response only. */
  score: Type.Number({ minimum: 0, maximum: 1 }),
  /** The source's date (YYYY-MM-DD): front-matter `updated`, else `created`, else the file's time. */
  date: Type.Optional(Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$' })),
  /** Which of those `date` is. */
  date_source: Type.Optional(
    Type.Union([Type.Literal('updated'), Type.Literal('created'), Type.Literal('modified')]),
  ),
};

export const NoteCitation = Type.Object(
  {
    type: Type.Literal('note'),
    ...citationCommon,
    /** The nearest heading above the passage; absent before the first heading. */
    heading: Type.Optional(Type.String()),
    /** 1-based file lines [start, end], inclusive, counting front matter. */
    lines: Type.Tuple([Type.Integer({ minimum: 1 }), Type.Integer({ minimum: 1 })]),
  },
  { additionalProperties: false },
);
export type NoteCitation = Static<typeof NoteCitation>;

export const PdfCitation = Type.Object(
  {
    type: Type.Literal('pdf'),
    ...citationCommon,
    /** 1-based page number. */
    page: Type.Integer({ minimum: 1 }),
  },
  { additionalProperties: false },
);
export type PdfCitation = Static<typeof PdfCitation>;

export const Citation = Type.Union([NoteCitation, PdfCitation]);
export type Citation = Static<typeof Citation>;

export type CitationDateSource = 'updated' | 'created' | 'modified';
