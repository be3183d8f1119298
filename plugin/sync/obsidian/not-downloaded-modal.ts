import { FuzzySuggestModal, Notice, TFile } from 'obsidian';
import type { App } from 'obsidian';
import { formatBytes } from '../first-sync-plan';
import type { SyncSessionControl } from './sync-session-control';

interface KeptFile {
  readonly path: string;
  readonly size: number;
}

/**
 * "Download a file kept on the companion" (docs/sync.md "Large files on phones"): the files
 * above this device's download limit, by name and size; picking one downloads it and opens it.
 * Nothing stands in for them in the vault meanwhile (no placeholder file that could be synced).
 */
export class NotDownloadedModal extends FuzzySuggestModal<KeptFile> {
  constructor(
    app: App,
    private readonly control: SyncSessionControl,
    private readonly files: readonly KeptFile[],
  ) {
    super(app);
    this.setPlaceholder(
      files.length === 0
        ? 'Every file is on this device'
        : `${files.length} file${files.length === 1 ? '' : 's'} kept on the companion: pick one to download and open`,
    );
  }

  getItems(): KeptFile[] {
    return [...this.files];
  }

  getItemText(file: KeptFile): string {
    return `${file.path} (${formatBytes(file.size)})`;
  }

  onChooseItem(file: KeptFile): void {
    void downloadAndOpen(this.app, this.control, file.path);
  }
}

export async function downloadAndOpen(
  app: App,
  control: SyncSessionControl,
  path: string,
): Promise<void> {
  const notice = new Notice(`Downloading ${path}…`, 0);
  try {
    const outcome = await control.downloadNow(path);
    notice.hide();
    if (outcome === 'changed') {
      new Notice(
        `${path} was not downloaded: a file is there already, or it changed on the companion. Sync now and try again.`,
      );
      return;
    }
    const file = app.vault.getFileByPath(path);
    if (file instanceof TFile) await app.workspace.getLeaf(true).openFile(file);
  } catch (error) {
    notice.hide();
    new Notice(
      `${path} could not be downloaded: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}
