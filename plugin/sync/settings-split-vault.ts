import { inSettingsFolder } from '../../shared/protocol/sync-settings';
import type { GuardedOutcome, SyncVault, VaultFileStat, WriteExpectation } from './sync-ports';

/**
 * One vault port over two: the notes (Obsidian's Vault API, which does not see dot-folders) and
 * the `.obsidian/` settings files (the file system adapter), told apart by path. The engine
 * sees one vault; which settings files are listed at all is the settings port's choice (only the
 * enabled categories), and the engine's scope decides again. A move between the two is refused
 * ('changed'): the companion refuses it too.
 */
export class SettingsSplitVault implements SyncVault {
  readonly caseInsensitive: boolean;

  constructor(
    private readonly notes: SyncVault,
    private readonly settings: SyncVault,
  ) {
    this.caseInsensitive = notes.caseInsensitive;
  }

  async list(): Promise<VaultFileStat[]> {
    const notes = (await this.notes.list()).filter((stat) => !inSettingsFolder(stat.path));
    return [...notes, ...(await this.settings.list())];
  }

  stat(path: string): Promise<VaultFileStat | null> {
    return this.port(path).stat(path);
  }

  read(path: string): Promise<Uint8Array> {
    return this.port(path).read(path);
  }

  write(
    path: string,
    bytes: Uint8Array,
    expect: WriteExpectation,
  ): Promise<VaultFileStat | 'changed'> {
    return this.port(path).write(path, bytes, expect);
  }

  async rename(from: string, to: string): Promise<GuardedOutcome> {
    if (inSettingsFolder(from) !== inSettingsFolder(to)) return 'changed';
    return this.port(from).rename(from, to);
  }

  delete(path: string, hash: string): Promise<GuardedOutcome> {
    return this.port(path).delete(path, hash);
  }

  private port(path: string): SyncVault {
    return inSettingsFolder(path) ? this.settings : this.notes;
  }
}
