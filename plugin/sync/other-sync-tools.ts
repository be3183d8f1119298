/**
 * Cairn Sync refuses to run beside another sync tool on the same vault (DESIGN §9): two tools
 * writing the same files race each other, and each takes the other's writes for the user's.
 * The Obsidian adapter gathers the facts; this says which tool, in words for the user.
 */
export interface SyncToolFacts {
  /** The Obsidian Sync core plugin is enabled. */
  readonly obsidianSync: boolean;
  /** The Self-hosted LiveSync plugin's folder exists under the config folder. */
  readonly liveSyncFolder: string | null;
  /** Syncthing's marker folder `.stfolder` exists at the vault root. */
  readonly syncthingMarker: boolean;
}

/** A sentence naming the other sync tool found, or null when there is none. */
export function otherSyncTool(facts: SyncToolFacts): string | null {
  if (facts.obsidianSync) {
    return 'Obsidian Sync is enabled for this vault (Settings → Core plugins → Sync). Turn it off to use Cairn Sync.';
  }
  if (facts.liveSyncFolder !== null) {
    return `Self-hosted LiveSync is installed in this vault (${facts.liveSyncFolder}). Remove it to use Cairn Sync.`;
  }
  if (facts.syncthingMarker) {
    return 'Syncthing syncs this vault (its .stfolder is at the vault root). Stop sharing the folder with Syncthing and delete .stfolder to use Cairn Sync.';
  }
  return null;
}
