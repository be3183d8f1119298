import type { Migration } from '../migrate';

/*
 * How often each note was cited in an answer served (answer route, chat, MCP `ask`,
 * /v1/chat/completions), for the knowledge health report's "often cited, not updated in a
 * year" (docs/search.md "Knowledge health"). Counts, never questions or text. Not derived from
 * the vault, so not removed with the index: a note cited and re-indexed keeps its count.
 */
export const citationCounts: Migration = {
  version: 16,
  name: 'citation-counts',
  up: `
    CREATE TABLE citation_counts (
      path  TEXT PRIMARY KEY NOT NULL,
      cited INTEGER NOT NULL
    ) STRICT;
  `,
};
