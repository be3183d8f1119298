/**
 * "Unpair this device" (docs/sync.md "Unpairing"): says what stays on disk and what goes, then
 * revokes this device's token on the companion and clears the sync state here. When the
 * companion cannot be reached it offers to unpair on this device only, with the command that
 * revokes the token on the server.
 */
import { Modal, Notice, Setting } from 'obsidian';
import type { App } from 'obsidian';
import { syncTokenName } from '../../../shared/protocol/sync-pairing';
import { SyncRequestError } from '../sync-client';
import type { SyncSessionControl } from './sync-session-control';

export class UnpairModal extends Modal {
  constructor(
    app: App,
    private readonly control: SyncSessionControl,
  ) {
    super(app);
  }

  override onOpen(): void {
    this.modalEl.addClass('cairn-sync-modal');
    this.setTitle('Unpair this device?');
    const { contentEl } = this;
    const device = this.control.deviceName();
    contentEl.createEl('p', {
      text: `This device (“${device}”) stops syncing with ${this.control.settings().companion.url}.`,
    });
    contentEl.createEl('h3', { text: 'Stays on disk' });
    const stays = contentEl.createEl('ul', { cls: 'cairn-sync-unpair-stays' });
    for (const item of [
      'Every note and attachment in this vault, as it is now: nothing here is deleted.',
      'Conflict copies beside their notes.',
      'The companion’s copy of the vault and the history of every file, for your other devices.',
    ]) {
      stays.createEl('li', { text: item });
    }
    contentEl.createEl('h3', { text: 'Goes' });
    const goes = contentEl.createEl('ul', { cls: 'cairn-sync-unpair-goes' });
    for (const item of [
      'This device’s token, revoked on the companion: search and chat through the companion need a new token or a new pairing too.',
      `This vault’s sync state on this device (IndexedDB database ${this.control.stateStoreName()}).`,
      'Sync on this device: it is turned off. Pair again to sync, and the first sync compares the files again.',
    ]) {
      goes.createEl('li', { text: item });
    }
    const message = contentEl.createDiv({ cls: 'cairn-setting-message' });
    const actions = new Setting(contentEl).setClass('cairn-sync-actions');
    actions.addButton((button) => button.setButtonText('Cancel').onClick(() => this.close()));
    actions.addButton((button) =>
      button
        .setButtonText('Unpair')
        .setClass('mod-warning')
        .onClick(async () => {
          button.setDisabled(true);
          try {
            await this.finish({ localOnly: false });
          } catch (error) {
            button.setDisabled(false);
            message.addClass('cairn-tone-error');
            message.setText(
              `${problemText(error)} You can unpair on this device only, then revoke its token on the companion’s machine: cairn-companion token revoke ${syncTokenName(device)}`,
            );
            if (!contentEl.querySelector('.cairn-sync-unpair-local')) {
              new Setting(contentEl).setClass('cairn-sync-unpair-local').addButton((local) =>
                local
                  .setButtonText('Unpair on this device only')
                  .setClass('mod-warning')
                  .onClick(async () => {
                    local.setDisabled(true);
                    await this.finish({ localOnly: true }).catch((failure: unknown) => {
                      local.setDisabled(false);
                      message.setText(problemText(failure));
                    });
                  }),
              );
            }
          }
        }),
    );
  }

  override onClose(): void {
    this.contentEl.empty();
  }

  private async finish(options: { localOnly: boolean }): Promise<void> {
    const done = await this.control.unpair(options);
    new Notice(done);
    this.close();
  }
}

function problemText(error: unknown): string {
  if (error instanceof SyncRequestError && error.code === 'UNREACHABLE') {
    return `The companion cannot be reached (${error.message}).`;
  }
  return `Could not unpair: ${error instanceof Error ? error.message : String(error)}.`;
}
