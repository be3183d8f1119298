import type { SearchExclusion } from '../../shared/protocol/status';

/*
 * Cairn's own output is not a source. Every chat is saved to Cairn/Chats/ and indexed, so asking
 * a question twice would cite the earlier chat, quoting the question back; weekly digests
 * (Cairn/Digests/, `type: digest`) are lists of links to other notes and would outrank them.
 * Both stay indexed (a user can still open them, and the setting below brings them back without
 * a rebuild); search and answers skip them unless the setting includes them.
 *
 *   CAIRN_SEARCH_CHATS=1     chat transcripts are sources again
 *   CAIRN_SEARCH_DIGESTS=1   digests are sources again
 */

/** Where the companion writes weekly digests (docs/clients.md). */
export const DEFAULT_DIGESTS_FOLDER = 'Cairn/Digests';

export interface SearchExclusionRule {
  readonly kind: SearchExclusion['kind'];
  /** Vault-relative folder whose files are left out, at any depth. */
  readonly folder: string;
  /** The variable that includes them. */
  readonly setting: string;
}

export interface SearchExclusionSettings {
  /** Include chat transcripts as sources. */
  readonly includeChats: boolean;
  /** Include digests as sources. */
  readonly includeDigests: boolean;
}

export const DEFAULT_SEARCH_EXCLUSION_SETTINGS: Readonly<SearchExclusionSettings> = {
  includeChats: false,
  includeDigests: false,
};

const TRUE = new Set(['1', 'true', 'yes', 'on']);
const FALSE = new Set(['0', 'false', 'no', 'off', '']);

/** Reads CAIRN_SEARCH_CHATS / CAIRN_SEARCH_DIGESTS; any other value is an error naming it. */
export function searchExclusionSettingsFromEnv(
  env: Readonly<Record<string, string | undefined>>,
): SearchExclusionSettings {
  const flag = (name: string): boolean => {
    const value = (env[name] ?? '').trim().toLowerCase();
    if (TRUE.has(value)) return true;
    if (FALSE.has(value)) return false;
    throw new Error(`${name} must be 1 or 0 (got "${env[name]}")`);
  };
  return {
    includeChats: flag('CAIRN_SEARCH_CHATS'),
    includeDigests: flag('CAIRN_SEARCH_DIGESTS'),
  };
}

/** The folders to leave out of search for these settings and the vault's chat folder. */
export function searchExclusionRules(
  settings: SearchExclusionSettings,
  folders: { readonly chats: string; readonly digests?: string },
): SearchExclusionRule[] {
  const rules: SearchExclusionRule[] = [];
  const clean = (folder: string) => folder.trim().replace(/^\/+|\/+$/g, '');
  if (!settings.includeChats && clean(folders.chats) !== '') {
    rules.push({ kind: 'chats', folder: clean(folders.chats), setting: 'CAIRN_SEARCH_CHATS=1' });
  }
  const digests = clean(folders.digests ?? DEFAULT_DIGESTS_FOLDER);
  if (!settings.includeDigests && digests !== '') {
    rules.push({ kind: 'digests', folder: digests, setting: 'CAIRN_SEARCH_DIGESTS=1' });
  }
  return rules;
}
