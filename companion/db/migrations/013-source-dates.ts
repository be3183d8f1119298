import type { Migration } from '../migrate';

/*
 * Citation dates (docs/search.md, "Source dates"): a note's front-matter `updated`, beside the
 * `created` and the mtime the index already keeps. INDEX_FORMAT v4 re-reads every file once, so
 * existing rows get it on the next start.
 */
export const sourceDates: Migration = {
  version: 13,
  name: 'source dates',
  up: `
    ALTER TABLE index_files ADD COLUMN updated_ms INTEGER;
  `,
};
