import { Platform, PluginSettingTab, Setting } from 'obsidian';
import type { App, Plugin } from 'obsidian';
import { CompanionClient } from '../../connection/client';
import { describeConnection } from '../../connection/connection-state';
import type { ConnectionTone } from '../../connection/connection-state';
import type { SettingsHost } from '../settings-host';
import { ObsidianHttpTransport } from '../../connection/obsidian/request-url-transport';
import { renderPairingSection } from '../../connection/obsidian/pairing-section';
import type {
  BuiltinModelDownloads,
  ModelRoute,
} from '../../embeddings/obsidian/builtin-model-commands';
import { modelDownloadUrl } from '../../embeddings/model-download-source';
import { releaseAssetsUrl } from '../../release-info';
import { EMBEDDING_PROVIDERS } from '../../../shared/settings/cairn-settings';
import type {
  CairnSettings,
  EmbeddingProvider,
  ReminderSyntaxes,
} from '../../../shared/settings/cairn-settings';
import { ValueSuggest, timeZones, vaultFolders } from './value-suggest';
import {
  checkHttpUrl,
  checkModelDownloadUrl,
  checkDeviceName,
  checkVaultFolder,
  isValidTimeZone,
  maskToken,
  offlineModeViolation,
  systemTimeZone,
} from '../../../shared/settings/validation';
import type { UrlCheck } from '../../../shared/settings/validation';

const PROVIDER_LABELS: Record<EmbeddingProvider, string> = {
  builtin: 'Built-in model (on this device)',
  companion: 'Companion',
  ollama: 'Ollama',
  none: 'None: keyword search only',
};

const TONES: readonly ConnectionTone[] = ['ok', 'pending', 'warning', 'error', 'muted'];

interface UrlField {
  name: string;
  desc: string;
  placeholder: string;
  /** Whether empty is a valid value (e.g. "no companion"). */
  optional: boolean;
  /** Shown while an optional field is empty; nothing when absent. */
  whenEmpty?: string;
  /** How a value is checked; default checkHttpUrl. */
  check?: (value: string) => UrlCheck;
  value: string;
  save: (settings: CairnSettings, url: string) => void;
  /** Called after a value was saved. */
  saved?: () => void;
}

type FolderKey = keyof CairnSettings['folders'];

/** A message line under a setting's description, for validation results and test outcomes. */
class InlineMessage {
  private readonly el: HTMLElement;

  constructor(setting: Setting) {
    this.el = setting.descEl.createDiv({ cls: 'cairn-setting-message' });
    this.el.hide();
  }

  show(text: string, tone: ConnectionTone): void {
    this.el.setText(text);
    this.el.removeClass(...TONES.map((other) => `cairn-tone-${other}`));
    this.el.addClass(`cairn-tone-${tone}`);
    this.el.show();
  }

  clear(): void {
    this.el.setText('');
    this.el.hide();
  }
}

/**
 * The settings tab, drawn with `display()`: the declarative getSettingDefinitions() API
 * needs Obsidian 1.13 and the manifest supports 1.8.7.
 */
/** Obsidian local-storage key (per device) of "Index this vault on this device". */
export const INDEX_ON_DEVICE_KEY = 'cairn-index-on-device';

export class CairnSettingTab extends PluginSettingTab {
  /** Re-checks of messages that depend on offline mode, run when it is toggled. */
  private offlineDependentChecks: (() => void)[] = [];

  constructor(
    app: App,
    private readonly owner: Plugin,
    private readonly host: SettingsHost,
    private readonly models: BuiltinModelDownloads,
  ) {
    super(app, owner);
  }

  override display(): void {
    const { containerEl } = this;
    containerEl.empty();
    containerEl.addClass('cairn-settings');
    this.offlineDependentChecks = [];
    this.problemsCallout(containerEl);
    this.companionSection(containerEl);
    this.remindersSection(containerEl);
    this.searchSection(containerEl);
    this.foldersSection(containerEl);
    this.syncSection(containerEl);
    this.privacySection(containerEl);
  }

  override hide(): void {
    this.host.settingsClosed();
    super.hide();
  }

  /**
   * A URL field that saves only valid values, shows why a value is refused, and warns
   * (re-checked when offline mode is toggled) when offline mode would block the host.
   */
  private addUrlSetting(containerEl: HTMLElement, field: UrlField): void {
    const setting = new Setting(containerEl).setName(field.name).setDesc(field.desc);
    const message = new InlineMessage(setting);
    const check = field.check ?? checkHttpUrl;
    let current = field.value;
    const showState = () => {
      if (current.trim() === '') {
        if (!field.optional) message.show('Enter a URL.', 'error');
        else if (field.whenEmpty) message.show(field.whenEmpty, 'muted');
        else message.clear();
        return;
      }
      const checked = check(current);
      if (!checked.ok) return message.show(checked.message, 'error');
      const blocked = offlineModeViolation(checked.url, this.host.settings.privacy.offlineMode);
      if (blocked) return message.show(blocked, 'warning');
      message.clear();
    };
    setting.addText((text) => {
      text.setPlaceholder(field.placeholder).setValue(field.value);
      text.onChange(async (value) => {
        current = value;
        showState();
        if (value.trim() === '' && field.optional) {
          await this.host.updateSettings((settings) => field.save(settings, ''));
          field.saved?.();
          return;
        }
        const checked = check(value);
        if (!checked.ok) return;
        await this.host.updateSettings((settings) => field.save(settings, checked.url));
        field.saved?.();
      });
    });
    showState();
    this.offlineDependentChecks.push(showState);
  }

  /** Lists data.json fields that were invalid at load, until a save writes valid values back. */
  private problemsCallout(containerEl: HTMLElement): void {
    const problems = this.host.settingsProblems;
    if (problems.length === 0) return;
    const callout = containerEl.createDiv({ cls: 'cairn-settings-problems' });
    callout.createEl('p', {
      text: 'These values in data.json were invalid, so their defaults are in use. Changing any setting saves the values shown below.',
    });
    const list = callout.createEl('ul');
    for (const problem of problems)
      list.createEl('li', { text: `${problem.field}: ${problem.message}` });
  }

  private companionSection(containerEl: HTMLElement): void {
    new Setting(containerEl).setName('Companion').setHeading();
    const settings = this.host.settings;

    this.addUrlSetting(containerEl, {
      name: 'Companion URL',
      desc: 'The address and port your companion server answers on. Leave empty to use this device only.',
      placeholder: '192.168.1.20:8787',
      optional: true,
      value: settings.companion.url,
      save: (settings, url) => {
        settings.companion.url = url;
      },
      saved: () => showCompanionParts(),
    });

    // Token, test, pairing QR and test notification mean something only with a companion set.
    const companionParts = containerEl.createDiv({ cls: 'cairn-settings-companion-parts' });
    const showCompanionParts = () =>
      companionParts.toggle(this.host.settings.companion.url.trim() !== '');
    showCompanionParts();
    containerEl = companionParts;

    const tokenSetting = new Setting(containerEl)
      .setName('API token')
      .setDesc(
        `Printed by the companion on its first start. Current: ${maskToken(settings.companion.token)}`,
      );
    tokenSetting.addText((text) => {
      text.inputEl.type = 'password';
      text.inputEl.autocomplete = 'off';
      text.setPlaceholder('Paste the token').setValue(settings.companion.token);
      text.onChange(async (value) => {
        await this.host.updateSettings((s) => {
          s.companion.token = value.trim();
        });
        tokenSetting.setDesc(
          `Printed by the companion on its first start. Current: ${maskToken(value.trim())}`,
        );
      });
    });

    const testSetting = new Setting(containerEl)
      .setName('Test connection')
      .setDesc('Checks that the companion answers and accepts the token.');
    const testMessage = new InlineMessage(testSetting);
    testSetting.addButton((button) =>
      button.setButtonText('Test connection').onClick(async () => {
        button.setDisabled(true);
        testMessage.show('Checking…', 'pending');
        try {
          const description = describeConnection(await this.host.testConnection());
          testMessage.show(description.detail, description.tone);
        } finally {
          button.setDisabled(false);
        }
      }),
    );

    renderPairingSection(containerEl, {
      url: () => this.host.settings.companion.url,
      token: () => this.host.settings.companion.token,
      sendTestPush: () =>
        new CompanionClient(new ObsidianHttpTransport(), () => ({
          url: this.host.settings.companion.url,
          token: this.host.settings.companion.token,
          offlineMode: this.host.settings.privacy.offlineMode,
        })).sendTestPush(),
    });
  }

  private remindersSection(containerEl: HTMLElement): void {
    new Setting(containerEl).setName('Reminders').setHeading();
    const settings = this.host.settings;

    const zoneSetting = new Setting(containerEl)
      .setName('Default time zone')
      .setDesc('Used for reminders written without a zone of their own.');
    const zoneMessage = new InlineMessage(zoneSetting);
    zoneSetting.addText((text) => {
      text.setPlaceholder(systemTimeZone()).setValue(settings.timezone);
      const save = async (value: string) => {
        if (!isValidTimeZone(value.trim())) {
          zoneMessage.show(
            `"${value}" is not a time zone name (IANA, e.g. America/New_York).`,
            'error',
          );
          return;
        }
        zoneMessage.clear();
        await this.host.updateSettings((s) => {
          s.timezone = value.trim();
        });
      };
      text.onChange(save);
      // A picker over the runtime's zone names: type a city ("tokyo", "new york").
      new ValueSuggest(this.app, text.inputEl, timeZones(), (zone) => void save(zone));
    });

    const syntaxes: { key: keyof ReminderSyntaxes; name: string; desc: string }[] = [
      {
        key: 'cairn',
        name: 'Read @remind(…)',
        desc: 'Cairn’s own syntax: @remind(2026-11-23 17:00).',
      },
      {
        key: 'reminderPlugin',
        name: 'Read Reminder plugin dates',
        desc: 'Lines like "Call the bank (@2026-11-23 17:00)". Read only, never rewritten.',
      },
      {
        key: 'tasks',
        name: 'Read Tasks plugin reminders',
        desc: 'Lines like "- [ ] Call the bank ⏰ 2026-11-23 10:00". Read only, never rewritten.',
      },
    ];
    for (const syntax of syntaxes) {
      new Setting(containerEl)
        .setName(syntax.name)
        .setDesc(syntax.desc)
        .addToggle((toggle) =>
          toggle.setValue(settings.reminders.syntaxes[syntax.key]).onChange(async (value) => {
            await this.host.updateSettings((s) => {
              s.reminders.syntaxes[syntax.key] = value;
            });
          }),
        );
    }
  }

  private searchSection(containerEl: HTMLElement): void {
    new Setting(containerEl).setName('Search and embeddings').setHeading();
    const settings = this.host.settings;

    new Setting(containerEl)
      .setName('Embedding provider')
      .setDesc(
        'Computes the vectors behind semantic search. With none, search is keyword only. A change applies after the plugin is reloaded or Obsidian restarts; the built-in model’s download applies at once.',
      )
      .addDropdown((dropdown) => {
        for (const provider of EMBEDDING_PROVIDERS)
          dropdown.addOption(provider, PROVIDER_LABELS[provider]);
        dropdown.setValue(settings.embeddings.provider).onChange(async (value) => {
          const provider = EMBEDDING_PROVIDERS.find((candidate) => candidate === value);
          if (!provider) return;
          await this.host.updateSettings((s) => {
            s.embeddings.provider = provider;
          });
          showProviderParts();
        });
      });

    // The built-in model's download and the Ollama embedding model show for their provider only.
    const builtinParts = containerEl.createDiv({ cls: 'cairn-settings-builtin-parts' });
    this.builtinModelSetting(builtinParts);

    this.addUrlSetting(containerEl, {
      name: 'Ollama URL',
      desc: 'Your model server, used for embeddings and, when a chat model is set, to phrase answers.',
      placeholder: '127.0.0.1:11434',
      optional: false,
      value: settings.ollama.url,
      save: (settings, url) => {
        settings.ollama.url = url;
      },
    });

    new Setting(containerEl)
      .setName('Ollama chat model')
      .setDesc('Leave empty to keep answers extractive (quotes with citations, no model).')
      .addText((text) =>
        text
          .setPlaceholder('llama3.2')
          .setValue(settings.ollama.chatModel)
          .onChange(async (value) => {
            await this.host.updateSettings((s) => {
              s.ollama.chatModel = value.trim();
            });
          }),
      );

    const ollamaEmbedParts = containerEl.createDiv({ cls: 'cairn-settings-ollama-embed-parts' });
    new Setting(ollamaEmbedParts).setName('Ollama embedding model').addText((text) =>
      text.setValue(settings.ollama.embedModel).onChange(async (value) => {
        await this.host.updateSettings((s) => {
          s.ollama.embedModel = value.trim();
        });
      }),
    );
    const showProviderParts = () => {
      const provider = this.host.settings.embeddings.provider;
      builtinParts.toggle(provider === 'builtin');
      ollamaEmbedParts.toggle(provider === 'ollama');
    };
    showProviderParts();

    new Setting(containerEl)
      .setName('Ollama vision model')
      .setDesc('Answers chat messages with pasted or dropped images. Leave empty to refuse images.')
      .addText((text) =>
        text
          .setPlaceholder('qwen2.5vl')
          .setValue(settings.ollama.visionModel)
          .onChange(async (value) => {
            await this.host.updateSettings((s) => {
              s.ollama.visionModel = value.trim();
            });
          }),
      );

    new Setting(containerEl)
      .setName('Unsupported statements')
      .setDesc(
        'When the model writes something its cited notes do not back (a number, name or date that is not there), mark it with the reason, or remove it and say so under the answer.',
      )
      .addDropdown((dropdown) =>
        dropdown
          .addOption('mark', 'Mark them')
          .addOption('remove', 'Remove them')
          .setValue(settings.ollama.unsupportedClaims)
          .onChange(async (value) => {
            await this.host.updateSettings((s) => {
              s.ollama.unsupportedClaims = value === 'remove' ? 'remove' : 'mark';
            });
          }),
      );

    new Setting(containerEl)
      .setName('Excluded files')
      .setDesc(
        'Glob patterns, one per line, never indexed, e.g. Templates/**. Applies after the plugin is reloaded or Obsidian restarts.',
      )
      .addTextArea((area) =>
        area.setValue(settings.search.excludeGlobs.join('\n')).onChange(async (value) => {
          await this.host.updateSettings((s) => {
            s.search.excludeGlobs = value
              .split('\n')
              .map((line) => line.trim())
              .filter((line) => line !== '');
          });
        }),
      );

    // Phones with a companion search through it (search.delegateToCompanionOnMobile); this
    // device may index on its own instead. Per device: local storage, not data.json (synced).
    if (Platform.isMobile && settings.companion.url.trim() !== '') {
      new Setting(containerEl)
        .setName('Index this vault on this device')
        .setDesc(
          'Off: search and chat ask the companion, and this phone holds no index or model. On: this device indexes the vault itself (memory and battery). Applies after the plugin is reloaded.',
        )
        .addToggle((toggle) =>
          toggle
            .setValue(this.app.loadLocalStorage(INDEX_ON_DEVICE_KEY) === true)
            .onChange((value) => this.app.saveLocalStorage(INDEX_ON_DEVICE_KEY, value)),
        );
    }
  }

  /**
   * Whether the built-in model's files are in place, a button per download route (the model
   * download URL, the paired companion) and the URL itself. Nothing downloads unless a button is
   * pressed; a route offline mode (or a missing pairing) blocks says so instead of downloading.
   */
  private builtinModelSetting(containerEl: HTMLElement): void {
    const setting = new Setting(containerEl)
      .setName('Built-in model files')
      .setDesc(
        'The built-in model is kept in this plugin’s folder, never in your notes. It is downloaded only when you press a button here, and search uses it as soon as it is in place.',
      );
    const message = new InlineMessage(setting);
    const showState = async () => {
      message.show('Checking…', 'pending');
      const check = await this.models.check();
      // The tab may have been closed or redrawn while the folder was being checked.
      if (!setting.settingEl.isConnected) return;
      if (check.complete) message.show('Installed.', 'ok');
      else message.show(check.message, 'warning');
    };
    const routeMessage = new InlineMessage(setting);
    const labels: Record<ModelRoute, () => string> = {
      url: () => this.models.urlLabel(),
      companion: () => 'Download from companion',
    };
    const relabels: (() => void)[] = [];
    for (const route of ['url', 'companion'] as const) {
      setting.addButton((button) => {
        if (route === 'url') button.setCta();
        relabels.push(() => {
          button.setButtonText(labels[route]());
        });
        button.setButtonText(labels[route]()).onClick(async () => {
          const blocked = this.models.blocked(route);
          if (blocked) return routeMessage.show(blocked, 'warning');
          routeMessage.clear();
          button.setDisabled(true);
          message.show('Downloading… (progress in the notice)', 'pending');
          try {
            await this.models.download(route);
          } finally {
            button.setDisabled(false);
            await showState().catch(() => undefined);
          }
        });
      });
    }
    // A message shown for a blocked route goes once the setting that blocked it changes.
    this.offlineDependentChecks.push(() => routeMessage.clear());
    showState().catch((error: unknown) =>
      message.show(`Cannot check the model folder: ${String(error)}`, 'error'),
    );
    this.modelDownloadUrlSetting(containerEl, () => {
      routeMessage.clear();
      for (const relabel of relabels) relabel();
    });
  }

  /**
   * The URL the model's files are downloaded from. It shows the URL in use; the default
   * (this version's release) is stored as empty, so it follows the plugin through updates.
   */
  private modelDownloadUrlSetting(containerEl: HTMLElement, changed: () => void): void {
    const version = this.owner.manifest.version;
    const defaultUrl = releaseAssetsUrl(version);
    const normalisedDefault = checkModelDownloadUrl(defaultUrl);
    this.addUrlSetting(containerEl, {
      name: 'Model download URL',
      desc: 'Where the built-in model’s files are downloaded from, each under its own name. Empty: the release of this plugin version. Offline mode allows only addresses on your local network.',
      placeholder: defaultUrl,
      optional: true,
      whenEmpty: 'Empty: the default is used.',
      check: checkModelDownloadUrl,
      value: modelDownloadUrl(this.host.settings, version),
      save: (settings, url) => {
        const isDefault = normalisedDefault.ok && url === normalisedDefault.url;
        settings.embeddings.modelDownloadUrl = isDefault ? '' : url;
      },
      saved: changed,
    });
  }

  private foldersSection(containerEl: HTMLElement): void {
    new Setting(containerEl).setName('Folders').setHeading();
    const folders: { key: FolderKey; name: string; desc: string }[] = [
      { key: 'notes', name: 'Notes folder', desc: 'Where notes created from chat go.' },
      { key: 'reminders', name: 'Reminders folder', desc: 'Where reminder notes go.' },
      { key: 'chats', name: 'Conversations folder', desc: 'Chats are kept as Markdown here.' },
      { key: 'attachments', name: 'Attachments folder', desc: 'Where uploaded PDFs and files go.' },
    ];
    for (const folder of folders) {
      const setting = new Setting(containerEl).setName(folder.name).setDesc(folder.desc);
      const message = new InlineMessage(setting);
      setting.addText((text) => {
        const save = async (value: string) => {
          const checked = checkVaultFolder(value);
          if (!checked.ok) return message.show(checked.message, 'error');
          message.clear();
          await this.host.updateSettings((s) => {
            s.folders[folder.key] = checked.folder;
          });
        };
        text.setValue(this.host.settings.folders[folder.key]).onChange(save);
        // The vault's folders as the user types.
        new ValueSuggest(this.app, text.inputEl, vaultFolders(this.app), (path) => void save(path));
      });
    }
  }

  private syncSection(containerEl: HTMLElement): void {
    new Setting(containerEl).setName('Sync').setHeading();
    new Setting(containerEl)
      .setName('Pair this device')
      .setDesc(
        'Paste the pairing link the companion printed (or scan its QR code with this device, which opens this step). Checks the address, then shows what the first sync would upload, download or keep as conflict copies, and waits for your yes.',
      )
      .addButton((button) =>
        button.setButtonText('Pair this device').onClick(() => this.host.openSyncPairing()),
      );
    new Setting(containerEl)
      .setName('Sync this vault with the companion')
      .setDesc(
        "Experimental: its simulation still finds lost edits, so keep a backup and do not use it on a vault you cannot restore. Keeps this vault and the companion's copy the same, on every device where it is on. Cairn refuses to start it beside another sync tool serving this vault (Obsidian Sync, a synced folder, a sync plugin). Takes effect when this tab closes.",
      )
      .addToggle((toggle) =>
        toggle.setValue(this.host.settings.sync.enabled).onChange(async (value) => {
          await this.host.updateSettings((s) => {
            s.sync.enabled = value;
          });
        }),
      );
    const name = new Setting(containerEl)
      .setName('Device name')
      .setDesc(
        'How history and conflict copies name this device. Empty: "Obsidian desktop" or "Obsidian mobile".',
      );
    const message = new InlineMessage(name);
    name.addText((text) =>
      text.setValue(this.host.settings.sync.deviceName).onChange(async (value) => {
        const checked = checkDeviceName(value);
        if (!checked.ok) return message.show(checked.message, 'error');
        message.clear();
        await this.host.updateSettings((s) => {
          s.sync.deviceName = checked.name;
        });
      }),
    );
  }

  private privacySection(containerEl: HTMLElement): void {
    new Setting(containerEl).setName('Privacy').setHeading();
    new Setting(containerEl)
      .setName('Offline mode')
      .setDesc(
        'Only contact this device and your local network (the companion and the model server). Turn off to use a server on the internet; nothing is sent anywhere you did not configure.',
      )
      .addToggle((toggle) =>
        toggle.setValue(this.host.settings.privacy.offlineMode).onChange(async (value) => {
          await this.host.updateSettings((s) => {
            s.privacy.offlineMode = value;
          });
          for (const check of this.offlineDependentChecks) check();
        }),
      );
  }
}
