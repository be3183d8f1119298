/**
 * "Show sync conflicts" (docs/sync.md "Conflicts"): every conflict copy with its device and
 * time, a side-by-side diff with the note, and keep this / keep that / keep both / open both.
 * Conflicts never pop up one by one; this list is where they wait.
 */
import { Modal, Notice, Setting, TFile } from 'obsidian';
import type { App } from 'obsidian';
import { conflictCopy, withoutConflictKeys } from '../conflict-copies';
import type { ConflictCopy } from '../conflict-copies';
import { decodeText, renderDiff, whenText } from './diff-table';

/** The conflict copies in the vault, newest first, with their device read from the copy. */
export async function listConflictCopies(app: App): Promise<ConflictCopy[]> {
  const copies: ConflictCopy[] = [];
  for (const file of app.vault.getFiles()) {
    if (conflictCopy(file.path) === null) continue;
    const text = file.extension === 'md' ? await app.vault.cachedRead(file) : undefined;
    const copy = conflictCopy(file.path, text);
    if (copy) copies.push(copy);
  }
  return copies.sort((a, b) => b.time - a.time);
}

export class ConflictsModal extends Modal {
  private copies: ConflictCopy[] = [];

  constructor(app: App) {
    super(app);
  }

  override onOpen(): void {
    this.modalEl.addClass('cairn-sync-modal', 'cairn-sync-wide');
    this.setTitle('Sync conflicts');
    void this.showList();
  }

  override onClose(): void {
    this.contentEl.empty();
  }

  private async showList(): Promise<void> {
    this.copies = await listConflictCopies(this.app);
    const { contentEl } = this;
    contentEl.empty();
    if (this.copies.length === 0) {
      contentEl.createDiv({
        cls: 'cairn-sync-empty',
        text: 'No conflicts. Every note is one version.',
      });
      return;
    }
    contentEl.createEl('p', {
      cls: 'cairn-sync-muted',
      text: 'Two devices changed the same lines. The note kept one version; the other is in a copy beside it. Pick one to compare.',
    });
    const list = contentEl.createDiv({ cls: 'cairn-sync-list' });
    for (const copy of this.copies) {
      const item = list.createEl('button', { cls: 'cairn-sync-list-item' });
      item.createDiv({ cls: 'cairn-sync-list-title', text: copy.originalPath });
      item.createDiv({
        cls: 'cairn-sync-muted',
        text: `${copy.device ?? 'another device'} · ${whenText(copy.time, Date.now())}`,
      });
      item.addEventListener('click', () => void this.showCopy(copy));
    }
  }

  private async showCopy(copy: ConflictCopy): Promise<void> {
    const { contentEl } = this;
    contentEl.empty();
    const original = this.app.vault.getFileByPath(copy.originalPath);
    const copyFile = this.app.vault.getFileByPath(copy.copyPath);
    if (!copyFile) return this.showList();
    const device = copy.device ?? 'another device';
    contentEl.createDiv({ cls: 'cairn-sync-list-title', text: copy.originalPath });
    contentEl.createDiv({
      cls: 'cairn-sync-muted',
      text: `Copy from ${device}, ${whenText(copy.time, Date.now())}`,
    });
    const copyBytes = new Uint8Array(await this.app.vault.readBinary(copyFile));
    const copyText = decodeText(copyBytes);
    const originalText = original
      ? decodeText(new Uint8Array(await this.app.vault.readBinary(original)))
      : '';
    if (copyText !== null && originalText !== null) {
      renderDiff(
        contentEl,
        { title: 'The note (kept)', text: originalText },
        { title: `The copy (${device})`, text: withoutConflictKeys(copyText) },
      );
    } else {
      contentEl.createDiv({
        cls: 'cairn-setting-message',
        text: 'Not text: open both to compare.',
      });
    }
    const buttons = new Setting(contentEl).setClass('cairn-sync-actions');
    buttons.addButton((button) => button.setButtonText('Back').onClick(() => void this.showList()));
    buttons.addButton((button) =>
      button.setButtonText('Open both').onClick(async () => {
        if (original) await this.app.workspace.getLeaf('tab').openFile(original);
        await this.app.workspace.getLeaf('split').openFile(copyFile);
        this.close();
      }),
    );
    buttons.addButton((button) =>
      button.setButtonText('Keep both').onClick(async () => {
        await this.keepBoth(copy, copyFile, copyText);
        void this.showList();
      }),
    );
    buttons.addButton((button) =>
      button.setButtonText('Keep the copy').onClick(async () => {
        if (original instanceof TFile) {
          if (copyText !== null)
            await this.app.vault.modify(original, withoutConflictKeys(copyText));
          else await this.app.vault.modifyBinary(original, copyBytes.slice().buffer);
        } else {
          await this.app.vault.create(
            copy.originalPath,
            copyText !== null ? withoutConflictKeys(copyText) : '',
          );
        }
        await this.app.fileManager.trashFile(copyFile);
        new Notice(`${copy.originalPath}: the copy from ${device} is the note now.`);
        void this.showList();
      }),
    );
    buttons.addButton((button) =>
      button
        .setButtonText('Keep the note')
        .setCta()
        .onClick(async () => {
          await this.app.fileManager.trashFile(copyFile);
          new Notice(`${copy.originalPath}: kept; the copy went to the trash (and sync history).`);
          void this.showList();
        }),
    );
  }

  /** Both stay: the copy becomes a note of its own, named after its device, without the keys. */
  private async keepBoth(
    copy: ConflictCopy,
    copyFile: TFile,
    copyText: string | null,
  ): Promise<void> {
    if (copyText !== null && copyFile.extension === 'md') {
      await this.app.vault.modify(copyFile, withoutConflictKeys(copyText));
    }
    const dot = copy.originalPath.lastIndexOf('.');
    const stem =
      dot > copy.originalPath.lastIndexOf('/')
        ? copy.originalPath.slice(0, dot)
        : copy.originalPath;
    const extension = dot > copy.originalPath.lastIndexOf('/') ? copy.originalPath.slice(dot) : '';
    const device = (copy.device ?? 'other device').replace(/[\\/:*?"<>|#^[\]]/g, '-');
    let target = `${stem} (${device})${extension}`;
    for (let n = 2; this.app.vault.getAbstractFileByPath(target); n++) {
      target = `${stem} (${device} ${n})${extension}`;
    }
    await this.app.fileManager.renameFile(copyFile, target);
    new Notice(`Kept both: the copy is now ${target}.`);
  }
}
