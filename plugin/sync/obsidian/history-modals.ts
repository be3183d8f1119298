/**
 * History and undelete (docs/sync.md "History"): "Show history of this note" (versions with
 * device and time, a diff against now, restore as a new version), "Deleted files" (restore one
 * or many) and "Restore a folder as it was at…". Restores are new versions: nothing in history
 * is rewritten, and every device receives them as ordinary changes.
 */
import { Modal, Notice, Setting } from 'obsidian';
import type { App, TFile } from 'obsidian';
import type { SyncHistoryResponse, SyncTrashResponse } from '../../../shared/protocol/sync';
import { formatBytes } from '../first-sync-plan';
import { describeFailure } from '../sync-status';
import { decodeText, renderDiff, whenText } from './diff-table';
import type { SyncSessionControl } from './sync-session-control';

function problemText(error: unknown): string {
  return describeFailure(error).detail;
}

export class NoteHistoryModal extends Modal {
  private history: SyncHistoryResponse | null = null;

  constructor(
    app: App,
    private readonly control: SyncSessionControl,
    private readonly file: TFile,
  ) {
    super(app);
  }

  override onOpen(): void {
    this.modalEl.addClass('cairn-sync-modal', 'cairn-sync-wide');
    this.setTitle(`History of ${this.file.basename}`);
    void this.load();
  }

  override onClose(): void {
    this.contentEl.empty();
  }

  private async load(): Promise<void> {
    this.contentEl.empty();
    this.contentEl.createDiv({ cls: 'cairn-setting-message', text: 'Loading versions…' });
    try {
      this.history = await this.control.archive().history(this.file.path);
    } catch (error) {
      this.contentEl.empty();
      this.contentEl.createDiv({
        cls: 'cairn-setting-message cairn-tone-error',
        text: problemText(error),
      });
      return;
    }
    this.showList();
  }

  private showList(): void {
    const { contentEl } = this;
    contentEl.empty();
    const versions = this.history?.versions ?? [];
    if (versions.length === 0) {
      contentEl.createDiv({
        cls: 'cairn-sync-empty',
        text: 'The companion holds no versions of this note yet.',
      });
      return;
    }
    contentEl.createEl('p', {
      cls: 'cairn-sync-muted',
      text: 'Every version the companion kept (30 days each, then one a day for a year). Pick one to compare with the note now.',
    });
    const list = contentEl.createDiv({ cls: 'cairn-sync-list' });
    versions.forEach((version, index) => {
      const item = list.createEl('button', { cls: 'cairn-sync-list-item' });
      item.createDiv({
        cls: 'cairn-sync-list-title',
        text: `${whenText(Date.parse(version.time), Date.now())}${index === 0 ? ' · latest' : ''}`,
      });
      item.createDiv({
        cls: 'cairn-sync-muted',
        text: `${version.device === 'server' ? 'the companion' : version.device} · ${formatBytes(version.size)}${version.path !== this.file.path ? ` · as ${version.path}` : ''}`,
      });
      item.addEventListener('click', () => void this.showVersion(version));
    });
  }

  private async showVersion(version: SyncHistoryResponse['versions'][number]): Promise<void> {
    const { contentEl } = this;
    contentEl.empty();
    let bytes: Uint8Array;
    try {
      bytes = await this.control.archive().getBlob(version.hash);
    } catch (error) {
      contentEl.createDiv({
        cls: 'cairn-setting-message cairn-tone-error',
        text: problemText(error),
      });
      return;
    }
    const then = decodeText(bytes);
    const now = decodeText(new Uint8Array(await this.app.vault.readBinary(this.file)));
    const label = `${version.device === 'server' ? 'the companion' : version.device}, ${whenText(Date.parse(version.time), Date.now())}`;
    if (then !== null && now !== null) {
      renderDiff(
        contentEl,
        { title: `That version (${label})`, text: then },
        { title: 'Now', text: now },
      );
    } else {
      contentEl.createDiv({
        cls: 'cairn-setting-message',
        text: `Not text (${formatBytes(bytes.length)}).`,
      });
    }
    new Setting(contentEl)
      .setClass('cairn-sync-actions')
      .addButton((button) => button.setButtonText('Back').onClick(() => this.showList()))
      .addButton((button) =>
        button
          .setButtonText('Restore this version')
          .setCta()
          .onClick(async () => {
            // Written here like an edit: it syncs as a new version, and today's stays in history.
            if (then !== null) await this.app.vault.modify(this.file, then);
            else await this.app.vault.modifyBinary(this.file, bytes.slice().buffer);
            new Notice(`${this.file.path}: restored the version of ${label}.`);
            this.close();
          }),
      );
  }
}

export class DeletedFilesModal extends Modal {
  private readonly chosen = new Set<string>();

  constructor(
    app: App,
    private readonly control: SyncSessionControl,
  ) {
    super(app);
  }

  override onOpen(): void {
    this.modalEl.addClass('cairn-sync-modal');
    this.setTitle('Deleted files');
    void this.load();
  }

  override onClose(): void {
    this.contentEl.empty();
  }

  private async load(): Promise<void> {
    const { contentEl } = this;
    contentEl.empty();
    let trash: SyncTrashResponse;
    try {
      trash = await this.control.archive().trash();
    } catch (error) {
      contentEl.createDiv({
        cls: 'cairn-setting-message cairn-tone-error',
        text: problemText(error),
      });
      return;
    }
    if (trash.files.length === 0) {
      contentEl.createDiv({
        cls: 'cairn-sync-empty',
        text: 'No deleted files in the companion’s history.',
      });
      return;
    }
    contentEl.createEl('p', {
      cls: 'cairn-sync-muted',
      text: 'Files deleted on any device, kept 90 days. Tick the ones to bring back.',
    });
    const list = contentEl.createDiv({ cls: 'cairn-sync-list' });
    const restore = new Setting(contentEl).setClass('cairn-sync-actions');
    let restoreButton: {
      setDisabled(disabled: boolean): unknown;
      setButtonText(text: string): unknown;
    } | null = null;
    const update = () => {
      restoreButton?.setDisabled(this.chosen.size === 0);
      restoreButton?.setButtonText(
        this.chosen.size > 1 ? `Restore ${this.chosen.size} files` : 'Restore',
      );
    };
    for (const file of trash.files) {
      const item = list.createEl('label', { cls: 'cairn-sync-list-item cairn-sync-check' });
      const box = item.createEl('input', { type: 'checkbox' });
      const text = item.createDiv();
      text.createDiv({ cls: 'cairn-sync-list-title', text: file.path });
      text.createDiv({
        cls: 'cairn-sync-muted',
        text: `deleted ${whenText(Date.parse(file.deleted), Date.now())} on ${file.device === 'server' ? 'the companion' : file.device} · ${formatBytes(file.size)}`,
      });
      box.addEventListener('change', () => {
        if (box.checked) this.chosen.add(file.file_id);
        else this.chosen.delete(file.file_id);
        update();
      });
    }
    restore.addButton((button) => {
      restoreButton = button;
      button
        .setButtonText('Restore')
        .setCta()
        .setDisabled(true)
        .onClick(async () => {
          button.setDisabled(true);
          try {
            const answer = await this.control
              .archive()
              .restore(this.control.deviceName(), { fileIds: [...this.chosen] });
            const restored = answer.results.filter((result) => result.status !== 'rejected').length;
            new Notice(
              `Restored ${restored} file${restored === 1 ? '' : 's'}; they arrive with the next sync.`,
            );
            this.chosen.clear();
            if (this.control.running()) await this.control.pull();
            void this.load();
          } catch (error) {
            new Notice(problemText(error));
            update();
          }
        });
    });
  }
}

export class RestoreFolderModal extends Modal {
  private folder = '';
  private at = '';

  constructor(
    app: App,
    private readonly control: SyncSessionControl,
    folder: string,
  ) {
    super(app);
    this.folder = folder;
  }

  override onOpen(): void {
    this.modalEl.addClass('cairn-sync-modal');
    this.setTitle('Restore a folder as it was at…');
    const { contentEl } = this;
    contentEl.createEl('p', {
      cls: 'cairn-sync-muted',
      text: 'Every file that was in the folder then gets that version back, as a new version (deleted ones come back). Files made since stay.',
    });
    new Setting(contentEl)
      .setName('Folder')
      .setDesc('Empty: the whole vault.')
      .addText((text) =>
        text.setValue(this.folder).onChange((value) => (this.folder = value.trim())),
      );
    new Setting(contentEl).setName('As it was at').addText((text) => {
      text.inputEl.type = 'datetime-local';
      text.onChange((value) => (this.at = value));
    });
    const message = contentEl.createDiv({ cls: 'cairn-setting-message' });
    new Setting(contentEl).addButton((button) =>
      button
        .setButtonText('Restore')
        .setCta()
        .onClick(async () => {
          const time = Date.parse(this.at);
          if (Number.isNaN(time)) {
            message.setText('Choose a date and time.');
            return;
          }
          button.setDisabled(true);
          try {
            const answer = await this.control.archive().restore(this.control.deviceName(), {
              folder: this.folder,
              at: new Date(time).toISOString(),
            });
            new Notice(
              answer.results.length === 0
                ? 'Nothing to restore: the folder is as it was then.'
                : `Restored ${answer.results.length} files as they were; they arrive with the next sync.`,
            );
            if (this.control.running()) await this.control.pull();
            this.close();
          } catch (error) {
            message.setText(problemText(error));
            button.setDisabled(false);
          }
        }),
    );
  }

  override onClose(): void {
    this.contentEl.empty();
  }
}
