import { Modal, Platform, PluginSettingTab, Setting } from 'obsidian';
import type { App, Plugin, SettingDefinitionItem } from 'obsidian';
import { CompanionClient } from '../../connection/client';
import { describeConnection } from '../../connection/connection-state';
import type { ConnectionTone } from '../../connection/connection-state';
import type { SettingsHost } from '../settings-host';
import { ObsidianHttpTransport } from '../../connection/obsidian/request-url-transport';
import { renderPairRow, renderTestPushRow } from '../../connection/obsidian/pairing-section';
import { CompanionTools } from '../tool-settings';
import { ToolsPanel, renderLocalToolsRow } from './tools-section';
import { LOCAL_TOOLS_SETTING } from '../../chat/local-tool-policy';
import type {
  BuiltinModelDownloads,
  ModelRoute,
} from '../../embeddings/obsidian/builtin-model-commands';
import { modelDownloadUrl } from '../../embeddings/model-download-source';
import { releaseAssetsUrl } from '../../release-info';
import { CHAT_PROVIDERS, EMBEDDING_PROVIDERS } from '../../../shared/settings/cairn-settings';
import type {
  CairnSettings,
  EmbeddingProvider,
  ReminderSyntaxes,
} from '../../../shared/settings/cairn-settings';
import { ValueSuggest, timeZones, vaultFolders } from './value-suggest';
import { SETTINGS_CATEGORY_LABELS, normalizeFolders } from '../../sync/sync-scope';
import { SETTINGS_CATEGORIES } from '../../../shared/protocol/sync-settings';
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

/** Obsidian local-storage key (per device) of "Index this vault on this device". */
export const INDEX_ON_DEVICE_KEY = 'cairn-index-on-device';

/**
 * One settings row: its name and description (what Obsidian 1.13's settings search finds) and
 * how its control is drawn into the row. `visible` is re-read whenever a setting it depends on
 * changes.
 */
interface SettingRow {
  readonly name: string;
  readonly desc?: string;
  readonly aliases?: string[];
  readonly visible?: () => boolean;
  render(setting: Setting): void;
}

interface SettingSection {
  readonly heading: string;
  readonly rows: readonly SettingRow[];
}

/**
 * The settings tab. One list of sections and rows describes it: Obsidian 1.13+ renders them
 * natively from `getSettingDefinitions()` (and finds them in its settings search); `display()`
 * draws the same rows for older Obsidian (the manifest supports 1.8.7). Sections come in the
 * order a newcomer needs them: search first (it works with no setup), the companion last
 * among the features since it is optional. Every change applies at once, without a reload.
 */
export class CairnSettingTab extends PluginSettingTab {
  /** Re-checks of messages that depend on offline mode, run when it is toggled. */
  private offlineDependentChecks: (() => void)[] = [];
  /** Rows drawn by `display()` that show only sometimes, re-checked by refreshRows(). */
  private conditionalRows: { el: HTMLElement; visible: () => boolean }[] = [];
  /** Relabels the download buttons after the download URL changed. */
  private relabelDownloads: (() => void)[] = [];

  constructor(
    app: App,
    private readonly owner: Plugin,
    private readonly host: SettingsHost,
    private readonly models: BuiltinModelDownloads,
  ) {
    super(app, owner);
  }

  /** Obsidian 1.13+: the rows, rendered and searched by Obsidian itself. */
  override getSettingDefinitions(): SettingDefinitionItem[] {
    this.offlineDependentChecks = [];
    this.conditionalRows = [];
    this.relabelDownloads = [];
    return this.sections().map((section) => ({
      type: 'group',
      heading: section.heading,
      items: section.rows.map((row) => ({
        name: row.name,
        ...(row.desc === undefined ? {} : { desc: row.desc }),
        ...(row.aliases ? { aliases: row.aliases } : {}),
        ...(row.visible ? { visible: row.visible } : {}),
        render: (setting: Setting) => row.render(setting),
      })),
    }));
  }

  /** Obsidian before 1.13: the same rows, drawn here. */
  override display(): void {
    const { containerEl } = this;
    containerEl.empty();
    containerEl.addClass('cairn-settings');
    this.offlineDependentChecks = [];
    this.conditionalRows = [];
    this.relabelDownloads = [];
    for (const section of this.sections()) {
      new Setting(containerEl).setName(section.heading).setHeading();
      for (const row of section.rows) {
        const setting = new Setting(containerEl).setName(row.name);
        if (row.desc !== undefined) setting.setDesc(row.desc);
        row.render(setting);
        if (row.visible) this.conditionalRows.push({ el: setting.settingEl, visible: row.visible });
      }
    }
    this.refreshRows();
  }

  override hide(): void {
    this.host.settingsClosed();
    super.hide();
  }

  /** Shows and hides the rows whose `visible` depends on a setting that just changed. */
  private refreshRows(): void {
    if (this.conditionalRows.length > 0) {
      for (const row of this.conditionalRows) row.el.toggle(row.visible());
      return;
    }
    // Obsidian 1.13+ re-evaluates `visible` itself; older versions have no such method.
    const tab = this as { refreshDomState?: () => void };
    if (typeof tab.refreshDomState === 'function') tab.refreshDomState();
  }

  private sections(): SettingSection[] {
    const problems = this.problemsRows();
    return [
      ...(problems.length > 0 ? [{ heading: 'Problems', rows: problems }] : []),
      { heading: 'Search and related notes', rows: this.searchRows() },
      { heading: 'Chat answers', rows: [...this.chatRows(), this.localToolsRow()] },
      { heading: 'Reminders', rows: this.reminderRows() },
      { heading: 'Companion (optional)', rows: [...this.companionRows(), ...this.toolRows()] },
      { heading: 'Folders', rows: this.folderRows() },
      { heading: 'Sync', rows: this.syncRows() },
      { heading: 'Privacy and data', rows: this.privacyRows() },
    ];
  }

  /**
   * A URL row that saves only valid values, shows why a value is refused, and warns
   * (re-checked when offline mode is toggled) when offline mode would block the host.
   */
  private urlRow(field: UrlField & { visible?: () => boolean }): SettingRow {
    return {
      name: field.name,
      desc: field.desc,
      ...(field.visible ? { visible: field.visible } : {}),
      render: (setting) => {
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
      },
    };
  }

  /** data.json fields that were invalid at load, until a save writes valid values back. */
  private problemsRows(): SettingRow[] {
    const problems = this.host.settingsProblems;
    if (problems.length === 0) return [];
    return [
      {
        name: 'Invalid values in data.json',
        desc: 'Their defaults are in use. Changing any setting saves the values shown here.',
        render: (setting) => {
          setting.settingEl.addClass('cairn-settings-problems');
          const list = setting.descEl.createEl('ul');
          for (const problem of problems)
            list.createEl('li', { text: `${problem.field}: ${problem.message}` });
        },
      },
    ];
  }

  private companionRows(): SettingRow[] {
    const settings = this.host.settings;
    // Token, test, pairing QR and test notification mean something only with a companion set.
    const companionSet = () => this.host.settings.companion.url.trim() !== '';
    const tokenDesc = (token: string) =>
      `Printed by the companion on its first start. Current: ${maskToken(token)}`;
    const pairing = {
      url: () => this.host.settings.companion.url,
      token: () => this.host.settings.companion.token,
      sendTestPush: () =>
        new CompanionClient(new ObsidianHttpTransport(), () => ({
          url: this.host.settings.companion.url,
          token: this.host.settings.companion.token,
          offlineMode: this.host.settings.privacy.offlineMode,
        })).sendTestPush(),
    };
    return [
      this.urlRow({
        name: 'Companion URL',
        desc: 'Your own Cairn companion server, for reminders on your phone, PDFs and search from other devices. Leave empty to use this device only: everything else works without it.',
        placeholder: '192.168.1.20:8787',
        optional: true,
        value: settings.companion.url,
        save: (settings, url) => {
          settings.companion.url = url;
        },
        saved: () => this.refreshRows(),
      }),
      {
        name: 'API token',
        desc: tokenDesc(settings.companion.token),
        visible: companionSet,
        render: (setting) => {
          setting.addText((text) => {
            text.inputEl.type = 'password';
            text.inputEl.autocomplete = 'off';
            text.setPlaceholder('Paste the token').setValue(settings.companion.token);
            text.onChange(async (value) => {
              await this.host.updateSettings((s) => {
                s.companion.token = value.trim();
              });
              setting.setDesc(tokenDesc(value.trim()));
            });
          });
        },
      },
      {
        name: 'Test connection',
        desc: 'Checks that the companion answers and accepts the token.',
        visible: companionSet,
        render: (setting) => {
          const testMessage = new InlineMessage(setting);
          setting.addButton((button) =>
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
        },
      },
      {
        name: 'Pair a phone',
        desc: 'Scan with the phone camera to open the companion page signed in. The token is in the link: show it only to your own phone.',
        aliases: ['QR code', 'phone'],
        visible: companionSet,
        render: (setting) => renderPairRow(setting, pairing),
      },
      {
        name: 'Send test notification',
        desc: 'Asks the companion to notify every paired phone.',
        visible: companionSet,
        render: (setting) => renderTestPushRow(setting, pairing),
      },
    ];
  }

  /**
   * The tools of the chat in this pane (docs/tools.md): the plugin's own engine, which runs on
   * this device whether or not a companion is set, so always shown. The companion's chat
   * (phone page, MCP, API) has its own list under Companion.
   */
  private localToolsRow(): SettingRow {
    return {
      name: LOCAL_TOOLS_SETTING,
      desc: 'The chat in this pane, on this device: switch each of Cairn’s tools on or off, and allow it, have the chat ask you first (a card in the chat with Allow and Deny), or deny it. Saved at once.',
      aliases: ['permissions', 'tool', 'ask'],
      render: (setting) => renderLocalToolsRow(setting, this.host),
    };
  }

  /**
   * The companion's tools and MCP servers (docs/tools.md), shown with a companion set. Both rows
   * share one panel, so adding a server redraws the list above it.
   */
  private toolRows(): SettingRow[] {
    const companionSet = () => this.host.settings.companion.url.trim() !== '';
    const panel = new ToolsPanel(
      new CompanionTools(
        new CompanionClient(new ObsidianHttpTransport(), () => ({
          url: this.host.settings.companion.url,
          token: this.host.settings.companion.token,
          offlineMode: this.host.settings.privacy.offlineMode,
        })),
      ),
    );
    return [
      {
        name: 'Tools the chat may use',
        desc: 'On the companion, for its chat (the phone page, MCP clients, the API): Cairn’s own tools and those of your MCP servers. Switch each on or off, and allow it, have the chat ask you first, or deny it. Needs an admin token.',
        aliases: ['MCP', 'permissions', 'tool'],
        visible: companionSet,
        render: (setting) => panel.renderListRow(setting),
      },
      {
        name: 'Add an MCP server',
        desc: 'A command the companion starts (its arguments one per line), or the URL of a Streamable HTTP server. Its tools start at "Ask every time".',
        aliases: ['MCP server'],
        visible: companionSet,
        render: (setting) => panel.renderAddServerRow(setting),
      },
    ];
  }

  private reminderRows(): SettingRow[] {
    const settings = this.host.settings;
    const zone: SettingRow = {
      name: 'Default time zone',
      desc: 'Used for reminders written without a zone of their own.',
      render: (setting) => {
        const zoneMessage = new InlineMessage(setting);
        setting.addText((text) => {
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
      },
    };
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
    return [
      zone,
      ...syntaxes.map((syntax): SettingRow => ({
        name: syntax.name,
        desc: syntax.desc,
        render: (setting) => {
          setting.addToggle((toggle) =>
            toggle.setValue(settings.reminders.syntaxes[syntax.key]).onChange(async (value) => {
              await this.host.updateSettings((s) => {
                s.reminders.syntaxes[syntax.key] = value;
              });
            }),
          );
        },
      })),
    ];
  }

  private searchRows(): SettingRow[] {
    const settings = this.host.settings;
    const provider = () => this.host.settings.embeddings.provider;
    const rows: SettingRow[] = [
      {
        name: 'Embedding provider',
        desc: 'What computes the vectors behind search by meaning and related notes. Keyword search works with any choice, from the start. A change applies at once.',
        aliases: ['search by meaning', 'semantic search', 'model'],
        render: (setting) => {
          setting.addDropdown((dropdown) => {
            for (const provider of EMBEDDING_PROVIDERS)
              dropdown.addOption(provider, PROVIDER_LABELS[provider]);
            dropdown.setValue(settings.embeddings.provider).onChange(async (value) => {
              const provider = EMBEDDING_PROVIDERS.find((candidate) => candidate === value);
              if (!provider) return;
              await this.host.updateSettings((s) => {
                s.embeddings.provider = provider;
              });
              this.refreshRows();
              this.host.applySearchSettings();
            });
          });
        },
      },
      this.builtinModelRow(() => provider() === 'builtin'),
      this.modelDownloadUrlRow(() => provider() === 'builtin'),
      {
        name: 'Ollama embedding model',
        desc: 'The Ollama model that computes the vectors (Ollama URL under Chat answers).',
        visible: () => provider() === 'ollama',
        render: (setting) => {
          setting.addText((text) =>
            text.setValue(settings.ollama.embedModel).onChange(async (value) => {
              await this.host.updateSettings((s) => {
                s.ollama.embedModel = value.trim();
              });
            }),
          );
        },
      },
      {
        name: 'Excluded files',
        desc: 'Glob patterns, one per line, never indexed, e.g. Templates/**. Obsidian’s own Excluded files (Files and links) are left out too. Applies when this tab closes.',
        render: (setting) => {
          setting.addTextArea((area) =>
            area.setValue(settings.search.excludeGlobs.join('\n')).onChange(async (value) => {
              await this.host.updateSettings((s) => {
                s.search.excludeGlobs = value
                  .split('\n')
                  .map((line) => line.trim())
                  .filter((line) => line !== '');
              });
            }),
          );
        },
      },
    ];
    // Phones with a companion search through it (search.delegateToCompanionOnMobile); this
    // device may index on its own instead. Per device: local storage, not data.json (synced).
    if (Platform.isMobile) {
      rows.push({
        name: 'Index this vault on this device',
        desc: 'Off: search, related notes and chat ask the companion, and this phone holds no index or model. On: this device indexes the vault itself (memory and battery). Applies after the plugin is reloaded.',
        visible: () => this.host.settings.companion.url.trim() !== '',
        render: (setting) => {
          setting.addToggle((toggle) =>
            toggle
              .setValue(this.app.loadLocalStorage(INDEX_ON_DEVICE_KEY) === true)
              .onChange((value) => this.app.saveLocalStorage(INDEX_ON_DEVICE_KEY, value)),
          );
        },
      });
    }
    rows.push({
      name: 'Search index',
      desc: 'Cairn keeps its index of this vault in Obsidian’s storage on this device. Rebuilding reads every note again; keyword search answers meanwhile.',
      aliases: ['rebuild', 'reindex', 'clear index'],
      render: (setting) => {
        const message = new InlineMessage(setting);
        setting.addButton((button) =>
          button.setButtonText('Rebuild index').onClick(async () => {
            button.setDisabled(true);
            message.show('Clearing the index…', 'pending');
            try {
              message.show(await this.host.rebuildIndex(), 'ok');
            } catch (error) {
              message.show(`Cannot rebuild the index: ${String(error)}`, 'error');
            } finally {
              button.setDisabled(false);
            }
          }),
        );
      },
    });
    return rows;
  }

  /** Where answers come from: the model server that phrases them from the vault's passages. */
  private chatRows(): SettingRow[] {
    const settings = this.host.settings;
    const provider = () => this.host.settings.chat.provider;
    const usesOllama = () =>
      provider() === 'ollama' || this.host.settings.embeddings.provider === 'ollama';
    const text = (
      value: string,
      placeholder: string,
      save: (s: CairnSettings, value: string) => void,
      password = false,
    ) => {
      return (setting: Setting) => {
        setting.addText((input) => {
          if (password) {
            input.inputEl.type = 'password';
            input.inputEl.autocomplete = 'off';
          }
          input
            .setPlaceholder(placeholder)
            .setValue(value)
            .onChange(async (changed) => {
              await this.host.updateSettings((s) => save(s, changed.trim()));
            });
        });
      };
    };
    return [
      {
        name: 'Model server',
        desc: 'What phrases answers from your notes’ passages, with citations. Without a chat model, answers are quotes with citations.',
        aliases: ['LLM', 'LM Studio', 'llama.cpp', 'vLLM', 'LocalAI', 'Jan', 'OpenAI'],
        render: (setting) => {
          setting.addDropdown((dropdown) => {
            dropdown
              .addOption('ollama', 'Ollama')
              .addOption('openai-compatible', 'OpenAI-compatible server')
              .setValue(settings.chat.provider)
              .onChange(async (value) => {
                const chosen = CHAT_PROVIDERS.find((candidate) => candidate === value);
                if (!chosen) return;
                await this.host.updateSettings((s) => {
                  s.chat.provider = chosen;
                });
                this.refreshRows();
              });
          });
        },
      },
      this.urlRow({
        name: 'Server URL',
        desc: 'The server’s OpenAI-style address including /v1: LM Studio http://127.0.0.1:1234/v1, llama.cpp’s llama-server http://127.0.0.1:8080/v1, vLLM http://127.0.0.1:8000/v1, LocalAI http://127.0.0.1:8080/v1.',
        placeholder: '127.0.0.1:1234/v1',
        optional: false,
        value: settings.chat.openAiUrl,
        save: (settings, url) => {
          settings.chat.openAiUrl = url;
        },
        visible: () => provider() === 'openai-compatible',
      }),
      {
        name: 'Server model',
        desc: 'The model name the server lists under /v1/models. Leave empty to keep answers extractive.',
        visible: () => provider() === 'openai-compatible',
        render: text(settings.chat.openAiModel, 'qwen2.5-7b-instruct', (s, value) => {
          s.chat.openAiModel = value;
        }),
      },
      {
        name: 'Server API key',
        desc: 'Only if your server asks for one; sent as a bearer token, to this server only.',
        visible: () => provider() === 'openai-compatible',
        render: text(
          settings.chat.openAiKey,
          'Optional',
          (s, value) => {
            s.chat.openAiKey = value;
          },
          true,
        ),
      },
      this.urlRow({
        name: 'Ollama URL',
        desc: 'Your Ollama server, used to phrase answers when a chat model is set and for embeddings when Ollama is the embedding provider. On a phone, 127.0.0.1 is the phone itself: use your computer’s address.',
        placeholder: '127.0.0.1:11434',
        optional: false,
        value: settings.ollama.url,
        save: (settings, url) => {
          settings.ollama.url = url;
        },
        visible: usesOllama,
      }),
      {
        name: 'Ollama chat model',
        desc: 'Leave empty to keep answers extractive (quotes with citations, no model).',
        visible: () => provider() === 'ollama',
        render: (setting) => {
          setting.addText((text) =>
            text
              .setPlaceholder('llama3.2')
              .setValue(settings.ollama.chatModel)
              .onChange(async (value) => {
                await this.host.updateSettings((s) => {
                  s.ollama.chatModel = value.trim();
                });
              }),
          );
        },
      },
      {
        name: 'Ollama vision model',
        desc: 'Answers chat messages with pasted or dropped images. Leave empty to refuse images.',
        render: (setting) => {
          setting.addText((text) =>
            text
              .setPlaceholder('qwen2.5vl')
              .setValue(settings.ollama.visionModel)
              .onChange(async (value) => {
                await this.host.updateSettings((s) => {
                  s.ollama.visionModel = value.trim();
                });
              }),
          );
        },
      },
      {
        name: 'Unsupported statements',
        desc: 'When the model writes something its cited notes do not back (a number, name or date that is not there), mark it with the reason, or remove it and say so under the answer.',
        render: (setting) => {
          setting.addDropdown((dropdown) =>
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
        },
      },
    ];
  }

  /**
   * Whether the built-in model's files are in place, a button per download route (the model
   * download URL, the paired companion). Nothing downloads unless a button is pressed; a route
   * offline mode (or a missing pairing) blocks says so instead of downloading.
   */
  private builtinModelRow(visible: () => boolean): SettingRow {
    return {
      name: 'Built-in model files',
      desc: 'The built-in model is kept in this plugin’s folder, never in your notes. It is downloaded only when you press a button here, and search uses it as soon as it is in place.',
      aliases: ['download model'],
      visible,
      render: (setting) => {
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
        for (const route of ['url', 'companion'] as const) {
          setting.addButton((button) => {
            if (route === 'url') button.setCta();
            this.relabelDownloads.push(() => {
              button.setButtonText(labels[route]());
              routeMessage.clear();
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
      },
    };
  }

  /**
   * The URL the model's files are downloaded from. It shows the URL in use; the default
   * (this version's release) is stored as empty, so it follows the plugin through updates.
   */
  private modelDownloadUrlRow(visible: () => boolean): SettingRow {
    const version = this.owner.manifest.version;
    const defaultUrl = releaseAssetsUrl(version);
    const normalisedDefault = checkModelDownloadUrl(defaultUrl);
    return this.urlRow({
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
      saved: () => {
        for (const relabel of this.relabelDownloads) relabel();
      },
      visible,
    });
  }

  private folderRows(): SettingRow[] {
    const folders: { key: FolderKey; name: string; desc: string }[] = [
      { key: 'notes', name: 'Notes folder', desc: 'Where notes created from chat go.' },
      { key: 'reminders', name: 'Reminders folder', desc: 'Where reminder notes go.' },
      { key: 'chats', name: 'Conversations folder', desc: 'Chats are kept as Markdown here.' },
      { key: 'attachments', name: 'Attachments folder', desc: 'Where uploaded PDFs and files go.' },
    ];
    return folders.map((folder) => ({
      name: folder.name,
      desc: folder.desc,
      render: (setting) => {
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
          new ValueSuggest(
            this.app,
            text.inputEl,
            vaultFolders(this.app),
            (path) => void save(path),
          );
        });
      },
    }));
  }

  private syncRows(): SettingRow[] {
    return [
      {
        name: 'Pair this device',
        desc: 'Paste the pairing link the companion printed (or scan its QR code with this device, which opens this step). Checks the address, then shows what the first sync would upload, download or keep as conflict copies, and waits for your yes.',
        render: (setting) => {
          setting.addButton((button) =>
            button.setButtonText('Pair this device').onClick(() => this.host.openSyncPairing()),
          );
        },
      },
      {
        name: 'Sync this vault with the companion',
        desc: "Experimental: its simulation still finds lost edits, so keep a backup and do not use it on a vault you cannot restore. Keeps this vault and the companion's copy the same, on every device where it is on. Cairn refuses to start it beside another sync tool serving this vault (Obsidian Sync, a synced folder, a sync plugin). Takes effect when this tab closes.",
        render: (setting) => {
          setting.addToggle((toggle) =>
            toggle.setValue(this.host.settings.sync.enabled).onChange(async (value) => {
              await this.host.updateSettings((s) => {
                s.sync.enabled = value;
              });
            }),
          );
        },
      },
      {
        name: 'Device name',
        desc: 'How history and conflict copies name this device. Empty: "Obsidian desktop" or "Obsidian mobile".',
        render: (setting) => {
          const message = new InlineMessage(setting);
          setting.addText((text) =>
            text.setValue(this.host.settings.sync.deviceName).onChange(async (value) => {
              const checked = checkDeviceName(value);
              if (!checked.ok) return message.show(checked.message, 'error');
              message.clear();
              await this.host.updateSettings((s) => {
                s.sync.deviceName = checked.name;
              });
            }),
          );
        },
      },
      {
        name: 'Folders this device does not sync',
        desc: 'One folder per line, e.g. Archive. Files there are neither uploaded nor downloaded on this device; those already here stay, and nothing is deleted anywhere because a folder is left out. A file moved into one here stays where it was on the companion. Removing a folder from the list brings its files (identical ones linked, differing ones kept twice). Applies when this tab closes.',
        aliases: ['exclude', 'excluded folders', 'selective sync'],
        render: (setting) => {
          setting.addTextArea((area) =>
            area
              .setValue(this.host.settings.sync.excludedFolders.join('\n'))
              .onChange(async (value) => {
                await this.host.updateSettings((s) => {
                  s.sync.excludedFolders = normalizeFolders(value.split('\n'));
                });
              }),
          );
        },
      },
      {
        name: 'Obsidian settings this device syncs',
        desc: 'Off by default, chosen on each device: this device uploads and downloads only the kinds turned on below, and the companion keeps their history. Never synced: open tabs and panes (workspace.json), Cairn’s own settings (each device has its own token), caches and hidden files. Obsidian reads some settings only when it starts: after settings arrive from another device, Cairn says so, and you may need to close and reopen Obsidian. Applies when this tab closes.',
        aliases: ['config folder', 'settings sync', 'themes', 'plugins sync'],
        render: () => undefined,
      },
      ...SETTINGS_CATEGORIES.map((category): SettingRow => ({
        name: SETTINGS_CATEGORY_LABELS[category].name,
        desc: SETTINGS_CATEGORY_LABELS[category].desc,
        render: (setting) => {
          setting.addToggle((toggle) =>
            toggle
              .setValue(this.host.settings.sync.settingsCategories.includes(category))
              .onChange(async (value) => {
                await this.host.updateSettings((s) => {
                  const others = s.sync.settingsCategories.filter((c) => c !== category);
                  s.sync.settingsCategories = SETTINGS_CATEGORIES.filter(
                    (c) => others.includes(c) || (value && c === category),
                  );
                });
              }),
          );
        },
      })),
      {
        name: 'Download large files only when opened',
        desc: `Files above this size (MB) that are not on this device stay on the companion until you open one with "Download a file kept on the companion" or from the sync view; nothing stands in for them in the vault, and leaving them there deletes nothing. 0 downloads every file${Platform.isMobile ? '; 10 suits most phones' : ''}. Applies when this tab closes.`,
        aliases: ['on demand', 'large files', 'attachments'],
        render: (setting) => {
          const message = new InlineMessage(setting);
          setting.addText((text) => {
            text.inputEl.type = 'number';
            text.inputEl.min = '0';
            text
              .setPlaceholder(Platform.isMobile ? '10' : '0')
              .setValue(String(this.host.settings.sync.downloadOnOpenAboveMB))
              .onChange(async (value) => {
                const mb = value.trim() === '' ? 0 : Number(value);
                if (!Number.isFinite(mb) || mb < 0 || mb > 100_000) {
                  return message.show(
                    'A size in MB from 0 to 100000; 0 downloads every file.',
                    'error',
                  );
                }
                message.clear();
                await this.host.updateSettings((s) => {
                  s.sync.downloadOnOpenAboveMB = mb;
                });
              });
          });
        },
      },
      {
        name: 'Unpair this device',
        desc: 'Stops syncing this vault here: revokes this device’s token on the companion and removes the sync state on this device. Your notes stay. Asks first, listing what stays.',
        render: (setting) => {
          setting.addButton((button) =>
            button
              .setButtonText('Unpair this device')
              .setClass('mod-warning')
              .setDisabled(!this.host.settings.sync.enabled)
              .onClick(() => this.host.openSyncUnpairing()),
          );
        },
      },
    ];
  }

  private privacyRows(): SettingRow[] {
    return [
      {
        name: 'Offline mode',
        desc: 'Only contact this device and your local network (the companion and the model server). Turn off to use a server on the internet, such as the default model download; nothing is sent anywhere you did not configure.',
        render: (setting) => {
          setting.addToggle((toggle) =>
            toggle.setValue(this.host.settings.privacy.offlineMode).onChange(async (value) => {
              await this.host.updateSettings((s) => {
                s.privacy.offlineMode = value;
              });
              for (const check of this.offlineDependentChecks) check();
            }),
          );
        },
      },
      {
        name: 'Remove local data',
        desc: 'Deletes what Cairn keeps outside your notes on this device: the search index, the sync state and the built-in model. Your notes, chats and reminders in the vault stay. Asks first.',
        aliases: ['delete data', 'uninstall', 'IndexedDB'],
        render: (setting) => {
          const message = new InlineMessage(setting);
          setting.addButton((button) =>
            button
              .setButtonText('Remove data')
              .setClass('mod-warning')
              .onClick(() => {
                new ConfirmRemovalModal(this.app, this.host, (outcome) =>
                  message.show(outcome.message, outcome.ok ? 'ok' : 'error'),
                ).open();
              }),
          );
        },
      },
    ];
  }
}

/** Says exactly what "Remove data" deletes before it does, and reports what it did. */
export class ConfirmRemovalModal extends Modal {
  constructor(
    app: App,
    private readonly host: SettingsHost,
    private readonly done: (outcome: { ok: boolean; message: string }) => void,
  ) {
    super(app);
  }

  override onOpen(): void {
    const { contentEl } = this;
    this.setTitle('Remove local data from this device?');
    contentEl.createEl('p', { text: 'This deletes, on this device only:' });
    const list = contentEl.createEl('ul', { cls: 'cairn-removal-list' });
    for (const item of this.host.localDataItems()) list.createEl('li', { text: item });
    contentEl.createEl('p', {
      text: 'Your notes, saved chats, reminders and settings stay. Search starts again from an empty index.',
    });
    new Setting(contentEl)
      .addButton((button) => button.setButtonText('Cancel').onClick(() => this.close()))
      .addButton((button) =>
        button
          .setButtonText('Remove')
          .setClass('mod-warning')
          .onClick(async () => {
            button.setDisabled(true);
            try {
              this.done({ ok: true, message: await this.host.removeLocalData() });
            } catch (error) {
              this.done({ ok: false, message: `Not everything was removed: ${String(error)}` });
            }
            this.close();
          }),
      );
  }

  override onClose(): void {
    this.contentEl.empty();
  }
}
