/**
 * "Pair this device" (docs/sync.md "Pairing"): the pairing link (pasted, or from the QR code
 * through `obsidian://cairn-sync-pair`), the HTTPS check, the refusal beside another sync tool,
 * the first-sync plan, and nothing synced until the user says yes.
 */
import { Modal, Setting } from 'obsidian';
import type { App } from 'obsidian';
import { ObsidianHttpTransport } from '../../connection/obsidian/request-url-transport';
import {
  SYNC_PAIR_ACTION,
  checkSyncAddress,
  parseSyncPairingLink,
  syncPairingFromParams,
} from '../../../shared/protocol/sync-pairing';
import type { SyncPairing, SyncPairingParse } from '../../../shared/protocol/sync-pairing';
import { firstSyncPlan, formatBytes } from '../first-sync-plan';
import { syncScope } from '../sync-scope';
import { SettingsSplitVault } from '../settings-split-vault';
import type { FirstSyncPlan, PlanGroup } from '../first-sync-plan';
import { CompanionSyncClient, SyncRequestError } from '../sync-client';
import { describeFailure } from '../sync-status';
import { ObsidianSettingsVault } from './obsidian-settings-vault';
import { ObsidianSyncVault } from './obsidian-sync-vault';
import type { SyncSessionControl } from './sync-session-control';

/** The companion's command that prints a pairing link (docs/sync.md). */
const PAIR_COMMAND = 'cairn-companion pair --name "Pixel 8" --url https://…';
/** What a pairing link looks like (the placeholder of the field). */
const PLACEHOLDER = `obsidian://${SYNC_PAIR_ACTION}?url=…`;

export class PairModal extends Modal {
  private linkText = '';

  constructor(
    app: App,
    private readonly control: SyncSessionControl,
    private readonly given?: SyncPairingParse,
  ) {
    super(app);
  }

  override onOpen(): void {
    this.modalEl.addClass('cairn-sync-modal');
    this.setTitle('Pair this device');
    if (this.given) void this.check(this.given);
    else this.askForLink();
  }

  override onClose(): void {
    this.contentEl.empty();
  }

  private askForLink(problem?: string): void {
    const { contentEl } = this;
    contentEl.empty();
    contentEl.createEl('p', {
      text: 'On the computer running the companion, run the pair command (see below) and scan its QR code with this device, or paste the link it prints here.',
    });
    contentEl.createEl('code', { cls: 'cairn-sync-command', text: PAIR_COMMAND });
    new Setting(contentEl)
      .setName('Pairing link')
      .setClass('cairn-sync-link-setting')
      .addTextArea((area) => {
        area.inputEl.rows = 3;
        area.inputEl.addClass('cairn-sync-link-input');
        area.setPlaceholder(PLACEHOLDER).setValue(this.linkText);
        area.onChange((value) => (this.linkText = value));
      });
    if (problem !== undefined) {
      contentEl.createDiv({ cls: 'cairn-setting-message cairn-tone-error', text: problem });
    }
    new Setting(contentEl).addButton((button) =>
      button
        .setButtonText('Next')
        .setCta()
        .onClick(() => void this.check(parseSyncPairingLink(this.linkText))),
    );
  }

  private async check(parsed: SyncPairingParse, acceptedPlainHttp = false): Promise<void> {
    if (!parsed.ok) return this.askForLink(parsed.message);
    const { pairing } = parsed;
    const address = checkSyncAddress(pairing.url);
    if (address.level === 'plain-http' && !acceptedPlainHttp) {
      const { contentEl } = this;
      contentEl.empty();
      contentEl.createEl('h3', { text: 'This address is not HTTPS' });
      contentEl.createDiv({
        cls: 'cairn-setting-message cairn-tone-warning',
        text: address.message,
      });
      new Setting(contentEl)
        .addButton((button) => button.setButtonText('Back').onClick(() => this.askForLink()))
        .addButton((button) =>
          button
            .setButtonText('Use it anyway')
            .setClass('mod-warning')
            .onClick(() => void this.check(parsed, true)),
        );
      return;
    }
    const refusal = await this.control.otherSyncTool();
    if (refusal !== null) {
      this.contentEl.empty();
      this.contentEl.createEl('h3', { text: 'Another sync tool serves this vault' });
      this.contentEl.createDiv({ cls: 'cairn-setting-message cairn-tone-error', text: refusal });
      new Setting(this.contentEl).addButton((button) =>
        button.setButtonText('Close').onClick(() => this.close()),
      );
      return;
    }
    await this.plan(pairing);
  }

  private async plan(pairing: SyncPairing): Promise<void> {
    const { contentEl } = this;
    contentEl.empty();
    contentEl.createEl('p', { text: `Companion: ${pairing.url}`, cls: 'cairn-sync-muted' });
    contentEl.createEl('p', { text: `This device: ${pairing.device}`, cls: 'cairn-sync-muted' });
    const progress = contentEl.createDiv({ cls: 'cairn-setting-message', text: 'Connecting…' });
    const api = new CompanionSyncClient(
      new ObsidianHttpTransport(60_000),
      () => ({
        url: pairing.url,
        token: pairing.token,
        offlineMode: this.control.settings().privacy.offlineMode,
      }),
      () => pairing.device,
    );
    const caseInsensitive = await this.app.vault.adapter.exists(
      this.app.vault.configDir.toUpperCase(),
    );
    let plan: FirstSyncPlan;
    const notesVault = new ObsidianSyncVault(this.app, { caseInsensitive });
    try {
      const sync = this.control.settings().sync;
      plan = await firstSyncPlan(
        new SettingsSplitVault(
          notesVault,
          new ObsidianSettingsVault(
            this.app.vault.adapter,
            this.app.vault.configDir,
            () => new Set(sync.settingsCategories),
            caseInsensitive,
          ),
        ),
        api,
        (done, total) =>
          progress.setText(`Comparing this vault with the companion: ${done} of ${total} files…`),
        syncScope({
          excludedFolders: sync.excludedFolders,
          settingsCategories: sync.settingsCategories,
        }),
        sync.downloadOnOpenAboveMB > 0 ? sync.downloadOnOpenAboveMB * 1_000_000 : null,
      );
    } catch (error) {
      progress.remove();
      const problem =
        error instanceof SyncRequestError
          ? describeFailure(error).detail
          : `Could not compare: ${error instanceof Error ? error.message : String(error)}`;
      contentEl.createDiv({ cls: 'cairn-setting-message cairn-tone-error', text: problem });
      new Setting(contentEl)
        .addButton((button) => button.setButtonText('Back').onClick(() => this.askForLink()))
        .addButton((button) =>
          button.setButtonText('Try again').onClick(() => void this.plan(pairing)),
        );
      return;
    } finally {
      notesVault.close();
    }
    progress.remove();
    this.showPlan(pairing, plan);
  }

  private showPlan(pairing: SyncPairing, plan: FirstSyncPlan): void {
    const { contentEl } = this;
    contentEl.createEl('h3', { text: 'The first sync would' });
    const list = contentEl.createDiv({ cls: 'cairn-sync-plan' });
    const row = (label: string, group: PlanGroup, note: string) => {
      const details = list.createEl('details', { cls: 'cairn-sync-plan-row' });
      const summary = details.createEl('summary');
      summary.createSpan({ cls: 'cairn-sync-plan-count', text: String(group.count) });
      summary.createSpan({ cls: 'cairn-sync-plan-label', text: label });
      summary.createSpan({ cls: 'cairn-sync-plan-size', text: formatBytes(group.bytes) });
      if (note !== '') details.createDiv({ cls: 'cairn-sync-muted', text: note });
      const paths = details.createEl('ul');
      for (const path of group.paths) paths.createEl('li', { text: path });
      if (group.count > group.paths.length) {
        paths.createEl('li', { text: `and ${group.count - group.paths.length} more` });
      }
    };
    row('upload from this device', plan.upload, '');
    row('download to this device', plan.download, '');
    if (plan.onDemand.count > 0) {
      row(
        'kept on the companion until opened',
        plan.onDemand,
        'Larger than this device downloads on its own (Settings → Sync). Run "Download a file kept on the companion" to get one.',
      );
    }
    row('already the same (linked, not sent)', plan.identical, '');
    row(
      'differ on both sides',
      plan.conflict,
      'Both versions are kept: the companion’s stays at the note’s name and this device’s lands beside it as a conflict copy (Show sync conflicts).',
    );
    contentEl.createEl('p', {
      cls: 'cairn-sync-muted',
      text: 'Nothing is deleted by the first sync. From now on this device uses the new token for all its requests to the companion.',
    });
    new Setting(contentEl)
      .addButton((button) => button.setButtonText('Not now').onClick(() => this.close()))
      .addButton((button) =>
        button
          .setButtonText('Start syncing')
          .setCta()
          .onClick(async () => {
            button.setDisabled(true);
            await this.control.updateSettings((settings) => {
              settings.companion.url = pairing.url;
              settings.companion.token = pairing.token;
              settings.sync.deviceName = pairing.device;
              settings.sync.enabled = true;
            });
            // Starts sync (a pause on this device ends with the new pairing), and the rest of
            // the plugin (connection, search) moves to the new address and token.
            this.control.setPaused(false);
            this.control.refresh();
            this.close();
          }),
      );
  }
}

/** The parameters Obsidian hands `obsidian://cairn-sync-pair?…`, as a parse result. */
export function pairingFromUri(params: Record<string, string>): SyncPairingParse {
  return syncPairingFromParams({ url: params.url, token: params.token, device: params.device });
}
