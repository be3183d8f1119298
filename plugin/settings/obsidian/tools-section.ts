/**
 * "Tools the chat may use" in the settings tab (docs/tools.md): the companion's tools, each with
 * its switch and permission, and the MCP servers, with add and remove. Two settings rows share
 * one panel: "Tools the chat may use" (its button loads the list under it) and "Add an MCP
 * server". Nothing is requested until the button is pressed.
 */
import { Setting } from 'obsidian';
import type { DropdownComponent, ToggleComponent } from 'obsidian';
import type { ToolListing, ToolPermission, ToolServerStatus } from '../../../shared/protocol/tools';
import { TOOL_DANGER_WORDS } from '../../../shared/protocol/tools';
import { describeLocalTool, serverConfigFrom, toolSourceWords } from '../tool-settings';
import { localToolListing, setLocalTool } from '../../chat/local-tool-policy';
import type { LocalToolListing } from '../../chat/local-tool-policy';
import type { SettingsHost } from '../settings-host';
import type { CompanionTools, ToolsOverview } from '../tool-settings';

const PERMISSIONS: readonly ToolPermission[] = ['allow', 'ask', 'deny'];
const PERMISSION_WORDS: Record<ToolPermission, string> = {
  allow: 'Allow',
  ask: 'Ask every time',
  deny: 'Deny',
};

type Tone = 'ok' | 'pending' | 'error' | 'muted';

function showMessage(el: HTMLElement, text: string, tone: Tone): void {
  el.setText(text);
  for (const other of ['ok', 'pending', 'error', 'muted']) el.removeClass(`cairn-tone-${other}`);
  el.addClass(`cairn-tone-${tone}`);
  el.toggle(text !== '');
}

/** One tool's line in words: where it comes from, what it may do, whether it needs the internet. */
export function describeTool(tool: ToolListing): string {
  const parts = [
    toolSourceWords(tool.source),
    TOOL_DANGER_WORDS[tool.danger],
    tool.requires_network ? 'Uses the internet' : 'Stays on this device and network',
  ];
  if (tool.always_asks) parts.push('Asks every time, even when allowed');
  return parts.join(' · ');
}

/** One server's line: up or down (with why), its tools, what it runs. */
export function describeServer(server: ToolServerStatus): string {
  const state =
    server.state === 'down'
      ? `Down${server.error === null ? '' : `: ${server.error}`}`
      : server.state === 'up'
        ? 'Up'
        : 'Connecting';
  const runs =
    server.url ?? [server.command ?? '', ...(server.args ?? [])].filter((part) => part).join(' ');
  const tools = `${server.tools} tool${server.tools === 1 ? '' : 's'}`;
  return `${state} · ${tools} · ${runs}`;
}

export class ToolsPanel {
  private listEl: HTMLElement | null = null;
  private messageEl: HTMLElement | null = null;
  private loaded = false;

  constructor(private readonly tools: CompanionTools) {}

  /** "Tools the chat may use": a button that loads the list, drawn under the row. */
  renderListRow(setting: Setting): void {
    setting.settingEl.addClass('cairn-tools-row');
    this.messageEl = setting.descEl.createDiv({ cls: 'cairn-setting-message' });
    this.messageEl.hide();
    this.listEl = setting.settingEl.createDiv({ cls: 'cairn-tools-list' });
    this.loaded = false;
    setting.addButton((button) =>
      button.setButtonText('Load tools').onClick(async () => {
        button.setDisabled(true);
        try {
          await this.reload();
          button.setButtonText('Reload');
        } finally {
          button.setDisabled(false);
        }
      }),
    );
  }

  /** "Add an MCP server": a name, a command or URL, the command's arguments. */
  renderAddServerRow(setting: Setting): void {
    const message = setting.descEl.createDiv({ cls: 'cairn-setting-message' });
    message.hide();
    const fields = { name: '', target: '', args: '' };
    setting.addText((text) =>
      text.setPlaceholder('Name').onChange((value) => {
        fields.name = value;
      }),
    );
    setting.addText((text) =>
      text.setPlaceholder('Command or URL').onChange((value) => {
        fields.target = value;
      }),
    );
    setting.addTextArea((area) =>
      area.setPlaceholder('Arguments, one per line').onChange((value) => {
        fields.args = value;
      }),
    );
    setting.addButton((button) =>
      button.setButtonText('Add').onClick(async () => {
        const config = serverConfigFrom(fields);
        if (typeof config === 'string') return showMessage(message, config, 'error');
        button.setDisabled(true);
        showMessage(message, `Connecting to ${config.name}…`, 'pending');
        try {
          const added = await this.tools.addServer(config);
          if (!added.ok) return showMessage(message, added.message, 'error');
          showMessage(message, `Added ${added.value.name}: ${describeServer(added.value)}`, 'ok');
          if (this.loaded) await this.reload();
        } finally {
          button.setDisabled(false);
        }
      }),
    );
  }

  async reload(): Promise<void> {
    const message = this.messageEl;
    const list = this.listEl;
    if (!message || !list) return;
    showMessage(message, 'Loading…', 'pending');
    const overview = await this.tools.load();
    // The tab may have been redrawn meanwhile: the new rows load on their own.
    if (list !== this.listEl) return;
    list.empty();
    if (!overview.ok) return showMessage(message, overview.message, 'error');
    this.loaded = true;
    showMessage(message, '', 'muted');
    this.draw(list, overview.value);
  }

  private draw(list: HTMLElement, overview: ToolsOverview): void {
    new Setting(list).setName('Tools').setHeading();
    if (overview.tools.length === 0) {
      list.createDiv({ cls: 'cairn-setting-message', text: 'The companion lists no tools.' });
    }
    for (const tool of overview.tools) this.drawTool(list, tool);
    new Setting(list).setName('Servers').setHeading();
    if (overview.servers.length === 0) {
      list.createDiv({
        cls: 'cairn-setting-message',
        text: 'No MCP servers yet: add one below.',
      });
    }
    for (const server of overview.servers) this.drawServer(list, server);
  }

  private drawTool(list: HTMLElement, tool: ToolListing): void {
    const row = new Setting(list).setName(tool.name).setDesc(describeTool(tool));
    row.settingEl.addClass('cairn-tool');
    row.settingEl.dataset.tool = tool.name;
    const message = row.descEl.createDiv({ cls: 'cairn-setting-message' });
    message.hide();
    // What the companion last stored: a refused change puts the controls back to it.
    let stored = tool;
    let toggle: ToggleComponent | undefined;
    let dropdown: DropdownComponent | undefined;
    // Obsidian's toggle reports setValue as a change: a put-back is not saved again.
    let puttingBack = false;
    const save = async (patch: { enabled?: boolean; permission?: ToolPermission }) => {
      if (puttingBack) return;
      showMessage(message, 'Saving…', 'pending');
      const saved = await this.tools.update(tool.name, patch);
      if (!saved.ok) {
        puttingBack = true;
        toggle?.setValue(stored.enabled);
        dropdown?.setValue(stored.permission);
        puttingBack = false;
        return showMessage(message, saved.message, 'error');
      }
      stored = saved.value;
      showMessage(message, 'Saved.', 'ok');
    };
    row.addToggle((component) => {
      toggle = component;
      component.toggleEl.setAttribute('aria-label', 'Enabled');
      component.setValue(tool.enabled).onChange((enabled) => save({ enabled }));
    });
    row.addDropdown((component) => {
      dropdown = component;
      for (const permission of PERMISSIONS) {
        component.addOption(permission, PERMISSION_WORDS[permission]);
      }
      component.setValue(tool.permission).onChange(async (value) => {
        const permission = PERMISSIONS.find((candidate) => candidate === value);
        if (permission) await save({ permission });
      });
    });
  }

  private drawServer(list: HTMLElement, server: ToolServerStatus): void {
    const row = new Setting(list).setName(server.name).setDesc(describeServer(server));
    row.settingEl.addClass('cairn-tool-server');
    row.settingEl.dataset.server = server.name;
    const message = row.descEl.createDiv({ cls: 'cairn-setting-message' });
    message.hide();
    row.addButton((button) =>
      button
        .setButtonText('Remove')
        .setClass('mod-warning')
        .onClick(async () => {
          button.setDisabled(true);
          const removed = await this.tools.removeServer(server.name);
          if (!removed.ok) {
            button.setDisabled(false);
            return showMessage(message, removed.message, 'error');
          }
          await this.reload();
        }),
    );
  }
}

/**
 * "Tools this device's chat may use": Cairn's tools as the chat in this pane runs them (the
 * plugin's own engine, plugin/chat/local-tool-policy.ts), each with its switch and permission,
 * saved in data.json at once. Drawn from the settings: nothing is requested.
 */
export function renderLocalToolsRow(
  setting: Setting,
  host: Pick<SettingsHost, 'settings' | 'updateSettings'>,
): void {
  setting.settingEl.addClass('cairn-tools-row');
  const list = setting.settingEl.createDiv({ cls: 'cairn-tools-list cairn-local-tools' });
  for (const tool of localToolListing(host.settings)) drawLocalTool(list, tool, host);
}

function drawLocalTool(
  list: HTMLElement,
  tool: LocalToolListing,
  host: Pick<SettingsHost, 'settings' | 'updateSettings'>,
): void {
  const row = new Setting(list).setName(tool.name).setDesc(describeLocalTool(tool));
  row.settingEl.addClass('cairn-tool');
  row.settingEl.dataset.tool = tool.name;
  const save = async (change: { enabled?: boolean; permission?: ToolPermission }) => {
    await host.updateSettings((settings) => setLocalTool(settings, tool.name, change));
    const now = localToolListing(host.settings).find((listed) => listed.name === tool.name);
    if (now) row.setDesc(describeLocalTool(now));
  };
  row.addToggle((component) => {
    component.toggleEl.setAttribute('aria-label', 'Enabled');
    component.setValue(tool.enabled).onChange((enabled) => save({ enabled }));
  });
  row.addDropdown((component) => {
    for (const permission of PERMISSIONS) {
      component.addOption(permission, PERMISSION_WORDS[permission]);
    }
    component.setValue(tool.permission).onChange(async (value) => {
      const permission = PERMISSIONS.find((candidate) => candidate === value);
      if (permission) await save({ permission });
    });
  });
}
