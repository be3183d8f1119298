/**
 * The screens of Cairn Sync (docs/sync.md "Status", "Conflicts", "History"): the status bar
 * item, the sync view, and the commands that open pairing, conflicts, history and deleted
 * files. Everything here asks the running sync through `SyncSessionControl`.
 */
import { ItemView, Notice, Setting, TFile, TFolder } from 'obsidian';
import type { Plugin, WorkspaceLeaf } from 'obsidian';
import { SYNC_PAIR_ACTION } from '../../../shared/protocol/sync-pairing';
import type { SyncStatusSnapshot } from '../sync-status';
import { formatBytes } from '../first-sync-plan';
import { ConflictsModal, listConflictCopies } from './conflicts-modal';
import { whenText } from './diff-table';
import { DeletedFilesModal, NoteHistoryModal, RestoreFolderModal } from './history-modals';
import { NotDownloadedModal } from './not-downloaded-modal';
import { PairModal, pairingFromUri } from './pair-modal';
import type { SyncSessionControl } from './sync-session-control';
import { UnpairModal } from './unpair-modal';

export const SYNC_VIEW_TYPE = 'cairn-sync';

/** Held deletes listed by name in the view; the rest are counted. */
const HELD_LISTED = 50;

export function registerSyncUi(
  plugin: Plugin,
  control: SyncSessionControl,
): { openPairing: () => void; openUnpairing: () => void } {
  const { app } = control;
  const openPairing = () => new PairModal(app, control).open();
  const openUnpairing = () => new UnpairModal(app, control).open();
  const openView = async () => {
    const existing = app.workspace.getLeavesOfType(SYNC_VIEW_TYPE)[0];
    const leaf = existing ?? app.workspace.getRightLeaf(false);
    if (!leaf) return;
    if (!existing) await leaf.setViewState({ type: SYNC_VIEW_TYPE, active: true });
    await app.workspace.revealLeaf(leaf);
  };
  plugin.registerView(SYNC_VIEW_TYPE, (leaf) => new SyncView(leaf, control, openPairing));

  // The status bar: one line, hidden while sync is off and nothing needs saying.
  const bar = plugin.addStatusBarItem();
  bar.addClass('cairn-sync-status', 'mod-clickable');
  plugin.registerDomEvent(bar, 'click', () => void openView());
  plugin.register(
    control.status.subscribe((snapshot) => {
      bar.toggleClass('cairn-hidden', snapshot.kind === 'off' && snapshot.detail === '');
      bar.setText(`Sync: ${snapshot.title}`);
      bar.setAttr('aria-label', snapshot.detail === '' ? snapshot.title : snapshot.detail);
      bar.dataset.syncState = snapshot.kind;
    }),
  );

  plugin.registerObsidianProtocolHandler(SYNC_PAIR_ACTION, (params) => {
    new PairModal(app, control, pairingFromUri(params)).open();
  });

  plugin.addCommand({
    id: 'sync-pair',
    name: 'Pair this device with the companion',
    callback: openPairing,
  });
  plugin.addCommand({
    id: 'sync-unpair',
    name: 'Unpair this device from the companion',
    checkCallback: (checking) => {
      if (!control.settings().sync.enabled) return false;
      if (!checking) openUnpairing();
      return true;
    },
  });
  plugin.addCommand({
    id: 'sync-open-view',
    name: 'Open sync status',
    callback: () => void openView(),
  });
  plugin.addCommand({
    id: 'sync-pause',
    name: 'Pause sync on this device',
    checkCallback: (checking) => {
      if (control.isPaused() || !control.settings().sync.enabled) return false;
      if (!checking) control.setPaused(true);
      return true;
    },
  });
  plugin.addCommand({
    id: 'sync-resume',
    name: 'Resume sync on this device',
    checkCallback: (checking) => {
      if (!control.isPaused()) return false;
      if (!checking) control.setPaused(false);
      return true;
    },
  });
  plugin.addCommand({
    id: 'sync-download-kept',
    name: 'Download a file kept on the companion',
    checkCallback: (checking) => {
      if (!control.running()) return false;
      if (!checking) {
        void control
          .notDownloaded()
          .then((files) => new NotDownloadedModal(app, control, files).open());
      }
      return true;
    },
  });
  plugin.addCommand({
    id: 'sync-conflicts',
    name: 'Show sync conflicts',
    callback: () => new ConflictsModal(app).open(),
  });
  plugin.addCommand({
    id: 'sync-note-history',
    name: 'Show history of this note',
    checkCallback: (checking) => {
      const file = app.workspace.getActiveFile();
      if (!file || !control.settings().sync.enabled) return false;
      if (!checking) new NoteHistoryModal(app, control, file).open();
      return true;
    },
  });
  plugin.addCommand({
    id: 'sync-deleted-files',
    name: 'Deleted files',
    checkCallback: (checking) => {
      if (!control.settings().sync.enabled) return false;
      if (!checking) new DeletedFilesModal(app, control).open();
      return true;
    },
  });
  plugin.addCommand({
    id: 'sync-restore-folder',
    name: 'Restore a folder as it was at…',
    checkCallback: (checking) => {
      if (!control.settings().sync.enabled) return false;
      if (!checking) {
        const parent = app.workspace.getActiveFile()?.parent;
        new RestoreFolderModal(app, control, parent && !parent.isRoot() ? parent.path : '').open();
      }
      return true;
    },
  });
  // The file menu of a folder offers the same.
  plugin.registerEvent(
    app.workspace.on('file-menu', (menu, file) => {
      if (!(file instanceof TFolder) || !control.settings().sync.enabled) return;
      menu.addItem((item) =>
        item
          .setTitle('Restore as it was at…')
          .setIcon('history')
          .onClick(() => new RestoreFolderModal(app, control, file.path).open()),
      );
    }),
  );
  return { openPairing, openUnpairing };
}

/** The sync view: the status in words, what to do, Sync now, pause, held deletes, conflicts. */
export class SyncView extends ItemView {
  private unsubscribe: (() => void) | null = null;
  private snapshot: SyncStatusSnapshot | null = null;
  private conflicts = 0;
  /** Files above this device's download limit, kept on the companion. */
  private kept: { path: string; size: number }[] = [];
  private ticker: number | null = null;

  constructor(
    leaf: WorkspaceLeaf,
    private readonly control: SyncSessionControl,
    private readonly openPairing: () => void,
  ) {
    super(leaf);
  }

  getViewType(): string {
    return SYNC_VIEW_TYPE;
  }

  getDisplayText(): string {
    return 'Sync';
  }

  override getIcon(): string {
    return 'refresh-cw';
  }

  override async onOpen(): Promise<void> {
    this.unsubscribe = this.control.status.subscribe((snapshot) => {
      this.snapshot = snapshot;
      this.render();
    });
    this.registerEvent(this.app.vault.on('create', () => void this.countConflicts()));
    this.registerEvent(this.app.vault.on('delete', () => void this.countConflicts()));
    this.registerEvent(this.app.vault.on('rename', () => void this.countConflicts()));
    // "5 min ago" stays true while the view is open.
    this.ticker = window.setInterval(() => this.render(), 30_000);
    await this.countConflicts();
  }

  override async onClose(): Promise<void> {
    this.unsubscribe?.();
    this.unsubscribe = null;
    if (this.ticker !== null) window.clearInterval(this.ticker);
    this.ticker = null;
  }

  private async countConflicts(): Promise<void> {
    const count = (await listConflictCopies(this.app)).length;
    if (count !== this.conflicts) {
      this.conflicts = count;
      this.render();
    }
  }

  private async countKept(): Promise<void> {
    const kept = await this.control.notDownloaded();
    if (kept.length !== this.kept.length) {
      this.kept = kept;
      this.render();
    }
  }

  private render(): void {
    const snapshot = this.snapshot;
    if (!snapshot) return;
    void this.countKept();
    const root = this.contentEl;
    root.empty();
    root.addClass('cairn-sync-view');
    const head = root.createDiv({ cls: ['cairn-sync-state', `is-${snapshot.kind}`] });
    head.createDiv({ cls: 'cairn-sync-state-title', text: snapshot.title });
    head.createDiv({
      cls: 'cairn-sync-muted',
      text:
        snapshot.lastSynced === null
          ? 'Not synced yet in this session'
          : `Last synced ${whenText(snapshot.lastSynced, Date.now())}`,
    });
    if (snapshot.detail !== '') root.createDiv({ cls: 'cairn-sync-detail', text: snapshot.detail });

    const actions = new Setting(root).setClass('cairn-sync-actions');
    const paired = this.control.settings().sync.enabled;
    if (!paired) {
      actions.addButton((button) =>
        button.setButtonText('Pair this device').setCta().onClick(this.openPairing),
      );
    } else {
      actions.addButton((button) =>
        button
          .setButtonText('Sync now')
          .setCta()
          .setDisabled(!this.control.running())
          .onClick(async () => {
            try {
              await this.control.syncNow();
            } catch {
              // The status says what went wrong.
            }
          }),
      );
      actions.addButton((button) =>
        button
          .setButtonText(this.control.isPaused() ? 'Resume on this device' : 'Pause on this device')
          .onClick(() => this.control.setPaused(!this.control.isPaused())),
      );
    }

    for (const batch of snapshot.held) this.renderHeld(root, batch);

    const conflicts = root.createDiv({ cls: 'cairn-sync-section' });
    new Setting(conflicts)
      .setName(
        this.conflicts === 0
          ? 'No conflicts'
          : `${this.conflicts} conflict${this.conflicts === 1 ? '' : 's'}`,
      )
      .setDesc('Copies kept when two devices changed the same lines.')
      .addButton((button) =>
        button
          .setButtonText('Show')
          .setDisabled(this.conflicts === 0)
          .onClick(() => new ConflictsModal(this.app).open()),
      );
    if (this.kept.length > 0) {
      const bytes = this.kept.reduce((sum, file) => sum + file.size, 0);
      new Setting(root.createDiv({ cls: 'cairn-sync-section' }))
        .setName(
          `${this.kept.length} large file${this.kept.length === 1 ? '' : 's'} kept on the companion`,
        )
        .setDesc(
          `${formatBytes(bytes)} not downloaded to this device (above its limit in Settings → Sync). Pick one to download and open it.`,
        )
        .addButton((button) =>
          button
            .setButtonText('Download…')
            .onClick(() => new NotDownloadedModal(this.app, this.control, this.kept).open()),
        );
    }
    const history = root.createDiv({ cls: 'cairn-sync-section' });
    new Setting(history)
      .setName('History')
      .setDesc('Versions of a note, deleted files, a folder as it was.')
      .addButton((button) =>
        button
          .setButtonText('This note')
          .setDisabled(!paired)
          .onClick(() => {
            const file = this.app.workspace.getActiveFile();
            if (file instanceof TFile) new NoteHistoryModal(this.app, this.control, file).open();
            else new Notice('Open a note first.');
          }),
      )
      .addButton((button) =>
        button
          .setButtonText('Deleted files')
          .setDisabled(!paired)
          .onClick(() => new DeletedFilesModal(this.app, this.control).open()),
      );
    root.createDiv({
      cls: 'cairn-sync-muted cairn-sync-footer',
      text: paired
        ? `This device: ${this.control.deviceName()} · ${this.control.settings().companion.url}`
        : 'This device is not paired.',
    });
  }

  private renderHeld(root: HTMLElement, batch: SyncStatusSnapshot['held'][number]): void {
    const box = root.createDiv({ cls: 'cairn-sync-held' });
    box.createDiv({
      cls: 'cairn-sync-list-title',
      text: `This device deleted ${batch.paths.length} files at once`,
    });
    box.createDiv({
      cls: 'cairn-sync-muted',
      text: 'Held so a mistake does not spread: nothing is deleted on the companion or other devices until you confirm.',
    });
    const list = box.createEl('ul');
    for (const path of batch.paths.slice(0, HELD_LISTED)) list.createEl('li', { text: path });
    if (batch.paths.length > HELD_LISTED) {
      list.createEl('li', { text: `and ${batch.paths.length - HELD_LISTED} more` });
    }
    new Setting(box)
      .setClass('cairn-sync-actions')
      .addButton((button) =>
        button.setButtonText('Keep the files').onClick(async () => {
          button.setDisabled(true);
          await this.control.cancelHold(batch.hold);
          new Notice('The files are back on this device.');
        }),
      )
      .addButton((button) =>
        button
          .setButtonText(`Delete ${batch.paths.length} files everywhere`)
          .setClass('mod-warning')
          .onClick(async () => {
            button.setDisabled(true);
            await this.control.confirmHold(batch.hold);
            new Notice('Deleted everywhere; restore them from the deleted files list for 90 days.');
          }),
      );
  }
}
