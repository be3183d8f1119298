import type { Migration } from '../migrate';

/*
 * Per-token path rules (auth/path-rules.ts, docs/clients.md "Path rules"): `paths` is a JSON
 * array of vault folders the token is limited to, or NULL for the whole vault (every token
 * made before this step).
 */
export const tokenPaths: Migration = {
  version: 15,
  name: 'token-paths',
  up: `
    ALTER TABLE api_tokens ADD COLUMN paths TEXT;
  `,
};
